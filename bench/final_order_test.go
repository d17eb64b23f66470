package bench_test

import (
	"context"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/store"
	"github.com/chatseq/chatseq/store/memstore"
)

// The final state is encoded in batches on several goroutines, and the
// file lists it in the order the store is walked all the same: each
// chat's messages in sequence order, as the check's views want them.
func TestFinalStateIsRecordedInWalkOrder(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4)) // several encoders
	cfg := bench.DefaultConfig()
	cfg.Writers, cfg.Chats, cfg.Ops, cfg.Duration = 8, 40, 12000, 0
	cfg.KafkaOff = true
	cfg.HistoryPath = filepath.Join(t.TempDir(), "history.jsonl")
	st := memstore.New()
	if _, err := bench.Run(context.Background(), cfg, st); err != nil {
		t.Fatal(err)
	}
	h, err := history.ReadFile(cfg.HistoryPath)
	if err != nil {
		t.Fatal(err)
	}
	var chats []string
	for _, f := range h.Finals {
		if f.Table == history.TableCounters {
			chats = append(chats, f.Chat)
		}
	}
	var walked []history.Final
	if err := store.Walk(context.Background(), st, chats, bench.FinalVisitor(func(f history.Final) { walked = append(walked, f) })); err != nil {
		t.Fatal(err)
	}
	if len(walked) < 10*1024 {
		t.Fatalf("%d final lines: too few batches to test their order", len(walked))
	}
	got := slices.Clone(h.Finals)
	for i := range got {
		got[i].Line = 0
	}
	if !slices.Equal(got, walked) {
		for i := range min(len(got), len(walked)) {
			if got[i] != walked[i] {
				t.Fatalf("final line %d of %d is %+v, the walk's is %+v", i, len(walked), got[i], walked[i])
			}
		}
		t.Fatalf("%d final lines, the walk has %d", len(got), len(walked))
	}
}
