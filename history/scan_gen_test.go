package history_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/internal/histgen"
)

type sink struct {
	events []history.Event
	finals []history.Final
}

func (s *sink) Event(e *history.Event) { s.events = append(s.events, *e) }
func (s *sink) Final(f *history.Final) { s.finals = append(s.finals, *f) }

// On a generated history with crashes, replays and syncs, ScanFile hands
// over what ReadFile keeps.
func TestScanFileMatchesReadFileOnAGeneratedHistory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg := histgen.Default()
	cfg.Persists, cfg.Chats = 5000, 7
	if _, err := histgen.Generate(f, cfg); err != nil {
		t.Fatal(err)
	}
	f.Close()
	want, err := history.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got sink
	if _, err := history.ScanFile(path, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.events) < 10000 || !reflect.DeepEqual(got.events, want.Events) || !reflect.DeepEqual(got.finals, want.Finals) {
		t.Fatalf("ScanFile handed %d events and %d finals; ReadFile kept %d and %d, or they differ", len(got.events), len(got.finals), len(want.Events), len(want.Finals))
	}
}
