package history

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

const (
	tableReadMessages0 = `{"type":"table_read","table":"messages","lines":0}`
	finalCounter1      = `{"type":"final","table":"counters","chat":"c1","value":1}`
	finalMessage1      = `{"type":"final","table":"messages","chat":"c1","seq":1,"message_id":"m1","key":"k1"}`
)

// A table_read line says a table was read, wherever it stands among the
// final lines, and the reader counts the table's lines against it.
func TestTableReadLines(t *testing.T) {
	for _, tt := range []struct {
		name  string
		input string
		want  []TableRead
	}{
		{"read and empty", lines(endHeader, invokeP1, okP1, tableReadMessages0, endLineText), []TableRead{{Line: 4, Table: TableMessages}}},
		{"after its lines", lines(endHeader, invokeP1, okP1, finalMessage1, `{"type":"table_read","table":"messages","lines":1}`, endLineText),
			[]TableRead{{Line: 5, Table: TableMessages, Lines: 1, Found: 1}}},
		{"before its lines", lines(endHeader, invokeP1, okP1, `{"type":"table_read","table":"messages","lines":1}`, finalCounter1, finalMessage1, endLineText),
			[]TableRead{{Line: 4, Table: TableMessages, Lines: 1, Found: 1}}},
		{"cut short", lines(endHeader, invokeP1, okP1, `{"type":"table_read","table":"messages","lines":2}`, finalMessage1, endLineText),
			[]TableRead{{Line: 4, Table: TableMessages, Lines: 2, Found: 1}}},
		{"more lines than promised", lines(endHeader, invokeP1, okP1, tableReadMessages0, finalMessage1, endLineText),
			[]TableRead{{Line: 4, Table: TableMessages, Lines: 0, Found: 1}}},
		{"several tables", lines(testHeader, `{"type":"table_read","table":"events","lines":0}`, finalCounter1, `{"type":"table_read","table":"counters","lines":1}`),
			[]TableRead{{Line: 2, Table: TableEvents}, {Line: 4, Table: TableCounters, Lines: 1, Found: 1}}},
		{"none", lines(testHeader, invokeP1, okP1, finalMessage1), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := mustRead(t, tt.input)
			if !reflect.DeepEqual(h.TablesRead, tt.want) {
				t.Fatalf("tables read %+v, want %+v", h.TablesRead, tt.want)
			}
			var short []TableRead
			for _, r := range tt.want {
				if r.Lines != r.Found {
					short = append(short, r)
				}
			}
			if !reflect.DeepEqual(h.ShortTables(), short) {
				t.Fatalf("short tables %+v, want %+v", h.ShortTables(), short)
			}
			warned := 0
			for _, w := range h.Warnings {
				if strings.Contains(w.Message, "the table was cut short") || strings.Contains(w.Message, "the table is not the one read") {
					warned++
				}
			}
			if warned != len(short) {
				t.Fatalf("%d cut-short warnings, want %d: %+v", warned, len(short), h.Warnings)
			}
			if h.CutShort() {
				t.Fatal("a table cut short is not a missing end line")
			}
			for _, r := range tt.want {
				if !h.TableRead(r.Table) {
					t.Fatalf("TableRead(%q) is false", r.Table)
				}
			}
			if len(tt.want) == 0 && h.TableRead(TableMessages) {
				t.Fatal("a table with lines and no table_read line reads as read")
			}
		})
	}
}

// The recorder writes table_read lines after every line recorded before,
// and refuses a table the reader would.
func TestRecordTableRead(t *testing.T) {
	var out bytes.Buffer
	rec, err := NewRecorder(&out, Header{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	rec.Record(&Event{Kind: KindInvoke, Process: 1, F: FPersist, Chat: "c1", Key: "k1"})
	rec.RecordAt(&Event{Kind: KindOK, Process: 1, F: FPersist, Seq: 1, MessageID: "m1"}, rec.Now())
	rec.RecordFinal(Final{Table: TableCounters, Chat: "c1", Value: 1})
	if err := rec.RecordTableRead(TableCounters, 1); err != nil {
		t.Fatal(err)
	}
	if err := rec.RecordTableRead(TableMessages, 0); err != nil {
		t.Fatal(err)
	}
	if err := rec.RecordTableRead("members", 0); err == nil {
		t.Fatal("a table_read of an unknown table was accepted")
	}
	if err := rec.RecordTableRead(TableEvents, -1); err == nil {
		t.Fatal("a table_read of -1 lines was accepted")
	}
	if err := rec.End(); err != nil {
		t.Fatal(err)
	}
	h := mustRead(t, out.String())
	want := []TableRead{{Line: 5, Table: TableCounters, Lines: 1, Found: 1}, {Line: 6, Table: TableMessages}}
	if !reflect.DeepEqual(h.TablesRead, want) || len(h.Warnings) != 0 || h.End != 7 {
		t.Fatalf("tables read %+v, warnings %+v, end %d; want %+v\n%s", h.TablesRead, h.Warnings, h.End, want, out.String())
	}
	if !strings.Contains(out.String(), "\n"+tableReadMessages0+"\n") {
		t.Fatalf("no %s line in\n%s", tableReadMessages0, out.String())
	}
}

// sole_writer is a header extension the reader checks and keeps, and the
// recorder writes only as a bool.
func TestSoleWriterHeader(t *testing.T) {
	for _, tt := range []struct {
		header string
		want   bool
	}{
		{`{"format":"chatseq-history","version":1,"sole_writer":true}`, true},
		{`{"format":"chatseq-history","version":1,"sole_writer":false}`, false},
		{`{"format":"chatseq-history","version":1}`, false},
	} {
		if got := mustRead(t, lines(tt.header)).Header.SoleWriter(); got != tt.want {
			t.Errorf("%s: SoleWriter %v, want %v", tt.header, got, tt.want)
		}
	}
	var out bytes.Buffer
	if _, err := NewRecorder(&out, Header{Extra: map[string]string{SoleWriterField: `"yes"`}}, 0); err == nil || !strings.Contains(err.Error(), `"sole_writer" must be true or false`) {
		t.Fatalf("a sole_writer of \"yes\": %v", err)
	}
	out.Reset()
	rec, err := NewRecorder(&out, Header{Extra: map[string]string{SoleWriterField: "true"}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	rec.End()
	if h := mustRead(t, out.String()); !h.Header.SoleWriter() {
		t.Fatalf("the recorded header does not read as sole writer: %s", out.String())
	}
}

// Merged, a table is read only where every file read it; one cut short in
// any file stays cut short.
func TestReadFilesTablesRead(t *testing.T) {
	dir := t.TempDir()
	withRead := func(chat, extra string) string { return shard(chat, shardHeader) + extra }
	a := writeHistory(t, dir, "a.jsonl", withRead("chat-a", `{"type":"table_read","table":"messages","lines":1}`+"\n"+`{"type":"table_read","table":"counters","lines":1}`+"\n"))
	b := writeHistory(t, dir, "b.jsonl", withRead("chat-b", `{"type":"table_read","table":"messages","lines":1}`+"\n"))
	short := writeHistory(t, dir, "short.jsonl", withRead("chat-c", `{"type":"table_read","table":"counters","lines":5}`+"\n"))
	m, err := ReadFiles([]string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if !m.TableRead(TableMessages) || m.TableRead(TableCounters) || len(m.ShortTables()) != 0 {
		t.Fatalf("a and b: tables read %+v", m.TablesRead)
	}
	for _, r := range m.TablesRead {
		if file, line := m.Locate(r.Line); r.Table == TableMessages && (line != 9 || file == "") {
			t.Fatalf("table_read at merged line %d is %s:%d, want line 9", r.Line, file, line)
		}
	}
	m, err = ReadFiles([]string{a, short})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.ShortTables(); len(got) != 1 || got[0].Table != TableCounters || got[0].Lines != 5 {
		t.Fatalf("a and short: short tables %+v (all %+v)", got, m.TablesRead)
	}
	if m.TableRead(TableMessages) {
		t.Fatalf("a and short: messages read by one file of two counts as read: %+v", m.TablesRead)
	}
}
