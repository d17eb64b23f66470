package bench_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/target"
)

// A 1 s store stall in an open-loop run must show in the latency measured
// from intended starts, while the latency measured from actual sends (what
// a closed-loop tool reports) hides it: coordinated omission.
func TestOpenLoopLatencyIncludesAStall(t *testing.T) {
	cfg := bench.DefaultConfig()
	cfg.Writers, cfg.Chats, cfg.Duration, cfg.Rate = 4, 4, 3*time.Second, 400
	cfg.Faults = bench.FaultRates{}
	cfg.DuplicateAfterOK, cfg.ConcurrentDuplicate, cfg.SyncRatio = 0, 0, 0
	cfg.KafkaOff = true
	cfg.Timed = []target.TimedFault{{Kind: target.StoreStall, At: time.Second, For: time.Second}}
	cfg.HistoryPath = filepath.Join(t.TempDir(), "h.jsonl")
	res, err := bench.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	intended := time.Duration(res.Latency[bench.StepEndToEnd].ValueAtQuantile(99))
	service := time.Duration(res.Latency[bench.StepService].ValueAtQuantile(99))
	t.Logf("p99 from intended start %s, from actual send %s", intended, service)
	if intended < 500*time.Millisecond {
		t.Fatalf("open-loop p99 %s hides a 1 s stall", intended)
	}
	if service > intended/4 {
		t.Fatalf("p99 from actual sends %s should hide most of the stall that intended-start p99 %s shows", service, intended)
	}
}
