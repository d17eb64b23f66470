package bench_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/target"
	"github.com/chatseq/chatseq/targets/core"
)

// forgetfulTarget forgets a key's idempotency record ttl after its first
// ack: a send of the key after that is stored as a new message.
type forgetfulTarget struct {
	target.Target
	ttl   time.Duration
	mu    sync.Mutex
	acked map[[2]string]time.Time
}

func (f *forgetfulTarget) Persist(ctx context.Context, req sequencer.Request, tr sequencer.Tracer) (sequencer.Outcome, error) {
	id := [2]string{req.Chat, req.Key}
	f.mu.Lock()
	first, seen := f.acked[id]
	f.mu.Unlock()
	if seen && time.Since(first) > f.ttl {
		req.Key += "#forgotten" // a new message, as if the key were new
	}
	out, err := f.Target.Persist(ctx, req, tr)
	if err == nil && !seen {
		f.mu.Lock()
		f.acked[id] = time.Now()
		f.mu.Unlock()
	}
	return out, err
}

// --duplicate-late resends acknowledged keys long after their acks: a
// service that forgets its idempotency records after a second fails
// idempotency_guarantee. It passed, chatseq's other duplicates coming
// within milliseconds of their acks (an outside tester's, at 200 ms).
// Without the late resends the same service passes. The second is a
// loaded machine's margin: at 100 ms a writer held off the CPU between
// an ack and its duplicate made the run without late resends fail.
func TestALateDuplicateFindsForgottenIdempotencyRecords(t *testing.T) {
	run := func(late float64) checker.Result {
		cfg := bench.DefaultConfig()
		cfg.Writers, cfg.Chats, cfg.Duration = 2, 4, 4*time.Second
		cfg.Rate = 2000 // enough late resends, a small history
		cfg.Faults = bench.FaultRates{}
		cfg.DuplicateAfterOK, cfg.ConcurrentDuplicate = 0.2, 0
		cfg.DuplicateLate, cfg.DuplicateLateAfter = late, 2*time.Second
		cfg.KafkaOff = true
		cfg.HistoryPath = filepath.Join(t.TempDir(), "h.jsonl")
		forgetful := func(ctx context.Context, env target.Env) (target.Target, error) {
			tg, err := core.Factory(nil)(ctx, env)
			return &forgetfulTarget{Target: tg, ttl: time.Second, acked: map[[2]string]time.Time{}}, err
		}
		if _, err := bench.RunTarget(context.Background(), cfg, forgetful); err != nil {
			t.Fatal(err)
		}
		rep, _, err := checker.CheckFile(cfg.HistoryPath, checker.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res, _ := rep.Result(checker.NameIdempotencyGuarantee)
		return res
	}
	if res := run(0.2); res.Status != checker.Fail {
		t.Errorf("with late duplicates: %s is %s (%s), want fail", res.Name, res.Status, res.Detail)
	}
	if res := run(0); res.Status != checker.Pass {
		t.Errorf("without: %s is %s (%s), want pass", res.Name, res.Status, res.Detail)
	}
}
