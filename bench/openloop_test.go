package bench_test

import (
	"context"
	"path/filepath"
	"slices"
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
	var sends []int64
	writers := map[int]bool{}
	for _, e := range h.Events {
		if e.Kind == history.KindInvoke {
			sends = append(sends, e.Time)
			writers[e.Process] = true
		}
	}
	if len(writers) != cfg.Writers {
		t.Fatalf("%d processes sent, want %d writers", len(writers), cfg.Writers)
	}
	// Judged by the median gap between consecutive sends, not by each
	// writer's first send against writer 0's: on a loaded machine writer 0
	// alone may start late by more than any fixed slack. An even pace
	// spaces sends 1/rate apart, so most gaps are about that; writers in
	// step send in bursts, so most gaps are about 0. Load delays a send
	// only now and then, which moves the median little.
	slices.Sort(sends)
	gaps := make([]time.Duration, 0, len(sends))
	for i := 1; i < len(sends); i++ {
		gaps = append(gaps, time.Duration(sends[i]-sends[i-1]))
	}
	if len(gaps) < 2*cfg.Writers {
		t.Fatalf("%d sends in %v at %v ops/s, want at least %d", len(sends), cfg.Duration, cfg.Rate, 2*cfg.Writers+1)
	}
	slices.Sort(gaps)
	spacing := time.Duration(float64(time.Second) / cfg.Rate)
	if median := gaps[len(gaps)/2]; median < spacing/2 {
		t.Errorf("the median gap between consecutive sends is %v, want about 1/rate = %v (sends came in bursts)", median, spacing)
	}
}
