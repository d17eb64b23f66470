package history

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// endHeader promises the end line; endLineText is that line.
const (
	endHeader   = `{"format":"chatseq-history","version":1,"end_line":true}`
	endLineText = `{"type":"end"}`
)

const cutShortWarning = `the header promises an end line ({"type":"end"}) and the file has none`

func TestEndLineRead(t *testing.T) {
	final := `{"type":"final","table":"counters","chat":"c1","value":1}`
	for _, tt := range []struct {
		name     string
		input    string
		promised bool
		end      int
		cut      bool
		warnLine int // the warning that the file was cut short, 0: none
	}{
		{"promised and present", lines(endHeader, invokeP1, okP1, final, endLineText), true, 5, false, 0},
		{"promised, present, blank lines after", lines(endHeader, invokeP1, okP1, final, endLineText, "", "  "), true, 5, false, 0},
		{"promised, present without a newline", lines(endHeader, invokeP1, okP1, final) + endLineText, true, 5, false, 0},
		{"promised, after operations only", lines(endHeader, invokeP1, endLineText), true, 3, false, 0},
		{"promised and missing", lines(endHeader, invokeP1, okP1, final), true, 0, true, 4},
		{"promised, missing, final cut mid-line", lines(endHeader, invokeP1, okP1, final) + `{"type":"final","tab`, true, 0, true, 5},
		{"promised, the end line itself cut", lines(endHeader, invokeP1, okP1, final) + `{"type":"en`, true, 0, true, 5},
		{"promised false", lines(`{"format":"chatseq-history","version":1,"end_line":false}`, invokeP1, okP1), false, 0, false, 0},
		{"not promised, absent", lines(testHeader, invokeP1, okP1, final), false, 0, false, 0},
		// A file ending inside a line was cut by a writer killed
		// mid-write: its final state may be cut short, promise or not (a
		// final table judged without its last line failed a message the
		// writer was writing: an outside walk-through). A last line that
		// is whole JSON, only its newline missing, is read.
		{"not promised, final cut mid-line", lines(testHeader, invokeP1, okP1, final) + `{"type":"final","tab`, false, 0, true, 0},
		{"not promised, operation cut mid-line", lines(testHeader, invokeP1) + `{"type":"ok","pro`, false, 0, true, 0},
		{"not promised, last line without its newline", lines(testHeader, invokeP1, okP1) + final, false, 0, false, 0},
		{"not promised, present", lines(testHeader, invokeP1, okP1, endLineText), false, 4, false, 0},
		{"header only, promised", lines(endHeader), true, 0, true, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := mustRead(t, tt.input)
			if h.Header.EndLine != tt.promised || h.End != tt.end || h.CutShort() != tt.cut {
				t.Fatalf("promised %v, end %d, cut short %v; want %v, %d, %v", h.Header.EndLine, h.End, h.CutShort(), tt.promised, tt.end, tt.cut)
			}
			warned := 0
			for _, w := range h.Warnings {
				if strings.Contains(w.Message, cutShortWarning) {
					warned = w.Line
				}
			}
			if warned != tt.warnLine {
				t.Fatalf("cut-short warning on line %d, want %d (warnings %+v)", warned, tt.warnLine, h.Warnings)
			}
		})
	}
}

// The end line carries only "type": anything else is ignored with a
// warning, as on other lines, and never counts as an event.
func TestEndLineExtraFields(t *testing.T) {
	h := mustRead(t, lines(endHeader, invokeP1, `{"type":"end","note":"done","chat":"c1"}`))
	if h.End != 3 || len(h.Events) != 1 || len(h.Finals) != 0 {
		t.Fatalf("end %d, %d events, %d finals", h.End, len(h.Events), len(h.Finals))
	}
	var msgs []string
	for _, w := range h.Warnings {
		msgs = append(msgs, w.Message)
	}
	if len(msgs) != 2 || !strings.Contains(msgs[0], `unknown field "note"`) || !strings.Contains(msgs[1], `field "chat" is not part of an end line`) {
		t.Fatalf("warnings %q", msgs)
	}
}

// The recorder promises the end line in every header, End writes it last,
// and a history closed without End reads as cut short.
func TestRecorderEnd(t *testing.T) {
	record := func(end bool) (*Recorder, *bytes.Buffer) {
		var out bytes.Buffer
		rec, err := NewRecorder(&out, Header{Target: "t"}, 0)
		if err != nil {
			t.Fatal(err)
		}
		rec.Record(&Event{Kind: KindInvoke, Process: 1, F: FPersist, Chat: "c", Key: "k"})
		rec.Record(&Event{Kind: KindOK, Process: 1, F: FPersist, Seq: 1, MessageID: "m"})
		rec.RecordFinals([]Final{{Table: TableCounters, Chat: "c", Value: 1}})
		if end {
			if err := rec.End(); err != nil {
				t.Fatal(err)
			}
		}
		if err := rec.Close(); err != nil {
			t.Fatal(err)
		}
		return rec, &out
	}

	rec, out := record(true)
	text := out.String()
	if !strings.HasPrefix(text, `{"format":"chatseq-history","version":1,"end_line":true,"target":"t"}`+"\n") || !strings.HasSuffix(text, "\n"+endLineText+"\n") {
		t.Fatalf("recorded:\n%s", text)
	}
	h := mustRead(t, text)
	if !h.Header.EndLine || h.End != 5 || h.CutShort() || len(h.Warnings) != 0 {
		t.Fatalf("read back: promised %v, end %d, cut short %v, warnings %+v", h.Header.EndLine, h.End, h.CutShort(), h.Warnings)
	}
	// Nothing recorded after the end line reaches the file.
	rec.Record(&Event{Kind: KindInvoke, Process: 2, F: FSync, Chat: "c", After: 0, Limit: 1})
	rec.RecordFinals([]Final{{Table: TableCounters, Chat: "d", Value: 1}})
	if err := rec.Close(); !errors.Is(err, errAfterEnd) {
		t.Fatalf("Close after End with lines recorded since: %v, want %v", err, errAfterEnd)
	}
	if out.String() != text {
		t.Fatalf("lines were written after the end line:\n%s", out.String()[len(text):])
	}
	if err := rec.End(); !errors.Is(err, errAfterEnd) {
		t.Fatalf("a second End: %v", err)
	}
	if strings.Count(out.String(), endLineText) != 1 {
		t.Fatal("a second End wrote a second end line")
	}

	_, out = record(false)
	h = mustRead(t, out.String())
	if !h.CutShort() || len(h.Finals) != 1 {
		t.Fatalf("closed without End: cut short %v, %d finals", h.CutShort(), len(h.Finals))
	}
}

// A merged history is cut short when any file that promised an end line
// lacks it; a file that promised nothing is complete as it is.
func TestReadFilesEndLine(t *testing.T) {
	dir := t.TempDir()
	header := strings.Replace(shardHeader, `"version":1`, `"version":1,"end_line":true`, 1)
	complete := func(chat string) string { return shard(chat, header) + endLineText + "\n" }
	files := map[string]string{
		"complete-a":    complete("chat-a"),
		"complete-b":    complete("chat-b"),
		"cut-c":         shard("chat-c", header),
		"unpromised-d":  shard("chat-d", shardHeader),
		"unpromised-e":  shard("chat-e", shardHeader) + endLineText + "\n",
		"end-missing-f": strings.TrimSuffix(complete("chat-f"), endLineText+"\n") + `{"type":"e`,
	}
	paths := map[string]string{}
	for name, content := range files {
		paths[name] = filepath.Join(dir, name+".jsonl")
		if err := os.WriteFile(paths[name], []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		files []string
		cut   bool
		end   int // the merged end line, when not cut short
	}{
		{[]string{"complete-a", "complete-b"}, false, 18},
		{[]string{"complete-a", "cut-c"}, true, 0},
		{[]string{"cut-c", "complete-a"}, true, 0},
		{[]string{"complete-a", "unpromised-d"}, false, 9},
		{[]string{"unpromised-d", "complete-a"}, false, 17},
		{[]string{"unpromised-d", "unpromised-e"}, false, 17},
		{[]string{"complete-b", "end-missing-f"}, true, 0},
		{[]string{"cut-c"}, true, 0},
	} {
		var ps []string
		for _, f := range tt.files {
			ps = append(ps, paths[f])
		}
		m, err := ReadFiles(ps)
		if err != nil {
			t.Fatalf("%v: %v", tt.files, err)
		}
		if m.CutShort() != tt.cut || !tt.cut && m.End != tt.end {
			t.Errorf("%v: cut short %v, end %d; want %v, %d", tt.files, m.CutShort(), m.End, tt.cut, tt.end)
		}
		if tt.cut {
			// The warning names the file that was cut.
			found := false
			for _, w := range m.Warnings {
				if file, _ := m.Locate(w.Line); strings.Contains(w.Message, cutShortWarning) && (strings.Contains(file, "cut-c") || strings.Contains(file, "end-missing-f")) {
					found = true
				}
			}
			if !found {
				t.Errorf("%v: no cut-short warning locating the cut file: %+v", tt.files, m.Warnings)
			}
		}
	}
}
