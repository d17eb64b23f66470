package bench_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/history"
)

// An open-loop rate is an even pace across the writers, as vegeta's is:
// writer w first sends w/rate after writer 0, not with it. Writers in step
// sent every interval as one burst, and the burst's queue made the http
// target's p99 at 500 ops/s over 64 writers twenty times vegeta's.
func TestOpenLoopWritersSendEvenlyNotInBursts(t *testing.T) {
	cfg := bench.DefaultConfig()
	// 200 ms between one writer's operations, 25 ms between writers.
	cfg.Writers, cfg.Chats, cfg.Duration, cfg.Rate = 8, 8, time.Second, 40
	cfg.Faults = bench.FaultRates{}
	cfg.DuplicateAfterOK, cfg.ConcurrentDuplicate, cfg.SyncRatio = 0, 0, 0
	cfg.KafkaOff = true
	cfg.HistoryPath = filepath.Join(t.TempDir(), "h.jsonl")
	if _, err := bench.Run(context.Background(), cfg, nil); err != nil {
		t.Fatal(err)
	}
	h, err := history.ReadFile(cfg.HistoryPath)
	if err != nil {
		t.Fatal(err)
	}
	// Without faults a writer keeps its process id (its own number).
	first := map[int]int64{}
	for _, e := range h.Events {
		if _, seen := first[e.Process]; e.Kind == history.KindInvoke && !seen {
			first[e.Process] = e.Time
		}
	}
	if len(first) != cfg.Writers {
		t.Fatalf("%d processes sent, want %d writers", len(first), cfg.Writers)
	}
	// A timer never fires early; writer 0 may start late by a few ms.
	const slack = 10 * time.Millisecond
	spacing := time.Duration(float64(time.Second) / cfg.Rate)
	for w := 1; w < cfg.Writers; w++ {
		if d := time.Duration(first[w] - first[0]); d < time.Duration(w)*spacing-slack {
			t.Errorf("writer %d first sent %s after writer 0, want %s (%d × 1/rate)", w, d, time.Duration(w)*spacing, w)
		}
	}
}
