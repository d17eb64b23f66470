package bench_test

import (
	"context"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/target"
	"github.com/chatseq/chatseq/targets/core"
)

// A goroutine woken while a writer runs gets a core within a few of the
// writer's operations, even on one core: against the embedded store a
// writer never blocks, and one woken from a lock's wait otherwise waited
// until the next flush (hundreds of operations) or a preemption (10 ms).
func TestWriterLetsAWokenGoroutineRunSoon(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const wakeAt, within = 20, 32 // a writer yields every 16 operations
	var persists atomic.Int64
	woken := make(chan struct{})
	ranAfter := make(chan int64, 1)
	go func() {
		<-woken
		ranAfter <- persists.Load()
	}()
	cfg := bench.DefaultConfig()
	cfg.Writers, cfg.Chats, cfg.Ops, cfg.Duration = 1, 4, 2000, 0
	cfg.Faults = bench.FaultRates{}
	cfg.DuplicateAfterOK, cfg.ConcurrentDuplicate, cfg.SyncRatio = 0, 0, 0
	cfg.KafkaOff = true
	cfg.HistoryPath = filepath.Join(t.TempDir(), "history.jsonl")
	core := core.Factory(nil)
	_, err := bench.RunTarget(context.Background(), cfg, func(ctx context.Context, env target.Env) (target.Target, error) {
		target, err := core(ctx, env)
		if err != nil {
			return nil, err
		}
		return &wakingTarget{Target: target, persists: &persists, wakeAt: wakeAt, woken: woken}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-ranAfter:
		if n-wakeAt > within {
			t.Fatalf("a goroutine woken in persist %d ran after persist %d: the writer kept the core for %d more", wakeAt, n, n-wakeAt)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the woken goroutine never ran")
	}
}

// wakingTarget wakes a goroutine (closes woken) in its wakeAt-th persist.
type wakingTarget struct {
	target.Target
	persists *atomic.Int64
	wakeAt   int64
	woken    chan struct{}
}

func (t *wakingTarget) Persist(ctx context.Context, req sequencer.Request, tr sequencer.Tracer) (sequencer.Outcome, error) {
	if t.persists.Add(1) == t.wakeAt {
		close(t.woken)
	}
	return t.Target.Persist(ctx, req, tr)
}
