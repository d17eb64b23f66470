package checker_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/internal/histgen"
)

// CheckFile, which streams a file into a Log, judges exactly as Check does
// on the same file read whole: on a valid generated history, on one with a
// stale sync that only linearizability catches, over many chats, and with
// chats that only final lines name (they have no operation).
func TestCheckFileJudgesAsCheck(t *testing.T) {
	for _, tc := range []struct {
		name        string
		chats       int
		hot, stale  bool
		finalsChats int // chats named by final lines only
	}{
		{"hot chat", 1, true, false, 0},
		{"hot chat, stale sync", 1, true, true, 0},
		{"many chats", 12, false, false, 0},
		{"chats only final lines name", 12, false, false, 3},
		{"stale sync, chats only final lines name", 1, true, true, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			cfg := histgen.Default()
			cfg.Persists, cfg.Chats, cfg.Hot, cfg.StaleSync = 4000, tc.chats, tc.hot, tc.stale
			if _, err := histgen.Generate(&b, cfg); err != nil {
				t.Fatal(err)
			}
			text := b.String()
			if tc.finalsChats > 0 {
				first := strings.Index(text, `{"type":"final"`)
				var extra strings.Builder
				for i := range tc.finalsChats {
					fmt.Fprintf(&extra, `{"type":"final","table":"counters","chat":"only-final-%d","value":%d}`+"\n", i, i)
					fmt.Fprintf(&extra, `{"type":"final","table":"messages","chat":"only-final-%d","seq":1,"message_id":"m-only-%d","key":"k-only-%d"}`+"\n", i, i, i)
				}
				text = text[:first] + extra.String() + text[first:]
			}
			got, _, _ := checkFileAsCheck(t, tc.name, text)
			lin := got.Invariants[len(got.Invariants)-1]
			if tc.stale && (got.ExitCode() != 1 || !strings.Contains(lin.Detail, "not linearizable")) {
				t.Fatalf("exit %d, %s: %s", got.ExitCode(), lin.Name, lin.Detail)
			}
			if !tc.stale && tc.finalsChats == 0 && got.ExitCode() != 0 {
				t.Fatalf("a valid history: exit %d\n%+v", got.ExitCode(), got)
			}
		})
	}
}

// A file whose header promises the end line is judged alike streamed
// (CheckFile, the reader telling whether the end line was there) and read
// whole: complete with it, cut short without it, wherever the final state
// stops, and then never failed.
func TestCheckFileEndLine(t *testing.T) {
	var b strings.Builder
	cfg := histgen.Default()
	cfg.Persists, cfg.Chats = 3000, 4
	if _, err := histgen.Generate(&b, cfg); err != nil {
		t.Fatal(err)
	}
	header, body, _ := strings.Cut(b.String(), "\n")
	header = strings.Replace(header, `"version":1,`, `"version":1,"end_line":true,`, 1)
	firstFinal := strings.Index(body, `{"type":"final"`)
	if firstFinal < 0 || !strings.Contains(header, `"end_line":true`) {
		t.Fatalf("no final lines, or header %s", header)
	}
	finals := body[firstFinal:]
	for _, tt := range []struct {
		name string
		body string
		cut  bool
	}{
		{"complete", body + `{"type":"end"}` + "\n", false},
		{"without the end line", body, true},
		{"cut in the final state", body[:firstFinal+len(finals)/3], true},
		{"cut before the final state", body[:firstFinal], true},
	} {
		got, read, h := checkFileAsCheck(t, tt.name, header+"\n"+tt.body)
		if read.CutShort() != tt.cut || h.CutShort() != tt.cut {
			t.Fatalf("%s: cut short %v / %v", tt.name, read.CutShort(), h.CutShort())
		}
		wantExit := 0
		if tt.cut {
			wantExit = 3
		}
		if got.ExitCode() != wantExit {
			t.Fatalf("%s: exit %d, want %d: %+v", tt.name, got.ExitCode(), wantExit, got.Invariants)
		}
		if res, _ := got.Result(checker.NameAckImpliesPersistence); tt.cut != strings.HasPrefix(res.Detail, "the final state was cut short") {
			t.Fatalf("%s: ack_implies_persistence %s: %s", tt.name, res.Status, res.Detail)
		}
	}
}

// checkFileAsCheck writes text to a file and judges it streamed
// (CheckFile) and read whole (Check), failing t, with name, where the two
// reports differ. It returns CheckFile's report, what CheckFile read and
// the file read whole.
func checkFileAsCheck(t *testing.T, name, text string) (checker.Report, *history.History, *history.History) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "h.jsonl")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := history.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	want := checker.Check(h, checker.Options{})
	got, read, err := checker.CheckFile(path, checker.Options{})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	want.Stats.CheckMillis, got.Stats.CheckMillis = 0, 0
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: CheckFile and Check differ:\n%+v\n%+v", name, got, want)
	}
	return got, read, h
}
