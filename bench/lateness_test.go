package bench_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/store"
	"github.com/chatseq/chatseq/target"
	"github.com/chatseq/chatseq/targets/core"
)

// slowTarget answers every call after delay: a service slower than the
// rate asked of it.
type slowTarget struct {
	target.Target
	delay time.Duration
}

func (s slowTarget) Persist(ctx context.Context, req sequencer.Request, tr sequencer.Tracer) (sequencer.Outcome, error) {
	time.Sleep(s.delay)
	return s.Target.Persist(ctx, req, tr)
}

func (s slowTarget) Sync(ctx context.Context, chat string, after uint64, limit int) ([]store.Message, error) {
	time.Sleep(s.delay)
	return s.Target.Sync(ctx, chat, after, limit)
}

// An open loop two writers cannot keep (2000 ops/s against a service
// that takes 10 ms a call: 200 ops/s at most) said nothing; its lateness
// is counted, as k6 counts dropped iterations: the late starts, and the
// starts due before the end that were never made.
func TestAnOpenLoopThatCannotKeepItsRateSaysSo(t *testing.T) {
	cfg := bench.DefaultConfig()
	cfg.Writers, cfg.Chats, cfg.Duration, cfg.Rate = 2, 2, 500*time.Millisecond, 2000
	cfg.Faults = bench.FaultRates{}
	cfg.DuplicateAfterOK, cfg.ConcurrentDuplicate = 0, 0
	cfg.KafkaOff = true
	cfg.HistoryPath = filepath.Join(t.TempDir(), "h.jsonl")
	slow := func(ctx context.Context, env target.Env) (target.Target, error) {
		t, err := core.Factory(nil)(ctx, env) // a fresh store each run
		return slowTarget{t, 10 * time.Millisecond}, err
	}
	res, err := bench.RunTarget(context.Background(), cfg, slow)
	if err != nil {
		t.Fatal(err)
	}
	l := res.Lateness
	// 1000 starts were due; each writer made at most 50 in 500 ms.
	if !l.FellBehind() || l.Unsent < 800 || l.Late < l.Started/2 || l.Started+l.Unsent > 1002 || l.MaxLag < 100*time.Millisecond {
		t.Fatalf("lateness %+v: want most of 1000 due starts unsent and the rest late", l)
	}
	if l.Threshold != time.Millisecond {
		t.Fatalf("threshold %s, want 1ms (one 1ms interval)", l.Threshold)
	}

	// With --ops too, the duration ends the run first: the starts due
	// before it, up to the quota, were never made (they went uncounted).
	cfg.Ops = 600
	res, err = bench.RunTarget(context.Background(), cfg, slow)
	if err != nil {
		t.Fatal(err)
	}
	if l := res.Lateness; !l.FellBehind() || l.Unsent < 400 || l.Started+l.Unsent > 600 {
		t.Fatalf("lateness %+v under --ops 600: want most of the 600 due starts unsent, none past the quota", l)
	}

	// A closed loop has no schedule to fall behind.
	cfg.Rate, cfg.Duration, cfg.Ops = 0, 0, 20
	res, err = bench.RunTarget(context.Background(), cfg, slow)
	if err != nil {
		t.Fatal(err)
	}
	if res.Lateness != (bench.Lateness{}) {
		t.Fatalf("a closed loop's lateness: %+v, want none", res.Lateness)
	}
}
