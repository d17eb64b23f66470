package checker_test

import (
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
// on the same file read whole: on a valid generated history and on one with
// a stale sync that only linearizability catches.
func TestCheckFileJudgesAsCheck(t *testing.T) {
	for _, stale := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "h.jsonl")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		cfg := histgen.Default()
		cfg.Persists, cfg.Chats, cfg.Hot, cfg.StaleSync = 4000, 1, true, stale
		if _, err := histgen.Generate(f, cfg); err != nil {
			t.Fatal(err)
		}
		f.Close()
		h, err := history.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want := checker.Check(h, checker.Options{})
		got, _, err := checker.CheckFile(path, checker.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want.Stats.CheckMillis, got.Stats.CheckMillis = 0, 0
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("stale=%v: CheckFile and Check differ:\n%+v\n%+v", stale, got, want)
		}
		if lin := got.Invariants[len(got.Invariants)-1]; stale != (got.ExitCode() == 1) || stale && !strings.Contains(lin.Detail, "not linearizable") {
			t.Fatalf("stale=%v: exit %d, %s: %s", stale, got.ExitCode(), lin.Name, lin.Detail)
		}
	}
}
