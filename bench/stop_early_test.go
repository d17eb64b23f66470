package bench_test

import (
	"context"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/target"
	"github.com/chatseq/chatseq/targets/core"
)

// stopOnPersist closes stop during its nth persist, after first sleeping
// hold: as the online check does on the answer that proves a violation.
type stopOnPersist struct {
	target.Target
	nth   int64
	hold  time.Duration
	calls *atomic.Int64
	stop  func()
}

func (s stopOnPersist) Persist(ctx context.Context, req sequencer.Request, tr sequencer.Tracer) (sequencer.Outcome, error) {
	if s.calls.Add(1) == s.nth {
		time.Sleep(s.hold)
		s.stop()
	}
	return s.Target.Persist(ctx, req, tr)
}

// Config.Stop stops the writers early only while they still run: closed
// by an answer that came after their duration was over, it stopped
// nothing, and --fail-fast said the run "stopped early" (an outside
// tester's: the violating answer held 600 ms past a 3 s run).
func TestAStopAfterTheDurationIsNoEarlyStop(t *testing.T) {
	for _, c := range []struct {
		name      string
		duration  time.Duration
		nth       int64
		hold      time.Duration
		early     bool
		ranAtMost time.Duration
	}{
		{"during the run", time.Minute, 20, 0, true, 30 * time.Second},
		{"after the duration", 200 * time.Millisecond, 1, 600 * time.Millisecond, false, time.Minute},
	} {
		cfg := bench.DefaultConfig()
		cfg.Writers, cfg.Chats, cfg.Duration = 1, 2, c.duration
		cfg.Faults = bench.FaultRates{}
		cfg.KafkaOff = true
		cfg.HistoryPath = filepath.Join(t.TempDir(), "h.jsonl")
		stop := make(chan struct{})
		cfg.Stop = stop
		closeStop := sync.OnceFunc(func() { close(stop) })
		var calls atomic.Int64
		factory := func(ctx context.Context, env target.Env) (target.Target, error) {
			t, err := core.Factory(nil)(ctx, env)
			return stopOnPersist{Target: t, nth: c.nth, hold: c.hold, calls: &calls, stop: closeStop}, err
		}
		res, err := bench.RunTarget(context.Background(), cfg, factory)
		if err != nil {
			t.Fatal(err)
		}
		if res.StoppedEarlyByStop != c.early || res.Elapsed > c.ranAtMost {
			t.Errorf("%s: stopped early %v after %s; want %v", c.name, res.StoppedEarlyByStop, res.Elapsed, c.early)
		}
	}
}
