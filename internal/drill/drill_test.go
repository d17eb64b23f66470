package drill_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/internal/drill"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/store"
	"github.com/chatseq/chatseq/store/memstore"
)

func smallConfig(t *testing.T) drill.Config {
	cfg := drill.DefaultConfig()
	cfg.Writers, cfg.Warmup, cfg.After = 4, 60, 60
	cfg.HistoryPath = filepath.Join(t.TempDir(), "drill.jsonl")
	return cfg
}

func expectation(t *testing.T, res *drill.Result, name string) drill.Expectation {
	t.Helper()
	for _, e := range res.Expectations {
		if e.Name == name {
			return e
		}
	}
	t.Fatalf("no expectation %q in %+v", name, res.Expectations)
	return drill.Expectation{}
}

func invariant(t *testing.T, res *drill.Result, name string) checker.Result {
	t.Helper()
	inv, ok := res.Report.Result(name)
	if !ok {
		t.Fatalf("the checker did not judge %s", name)
	}
	return inv
}

func failedExpectations(res *drill.Result) []string {
	var out []string
	for _, e := range res.Expectations {
		if !e.OK {
			out = append(out, e.Name+": "+e.Detail)
		}
	}
	return out
}

// checkRunbookPassed asserts what a correct recovery must show.
func checkRunbookPassed(t *testing.T, res *drill.Result) {
	t.Helper()
	if !res.Passed {
		t.Fatalf("drill failed: %v", failedExpectations(res))
	}
	if res.VerifySeq != res.MaxPersisted+1 || res.FirstNewSeq != res.MaxPersisted+1 {
		t.Errorf("first new sequence %d (test message %d), want max+1 = %d", res.FirstNewSeq, res.VerifySeq, res.MaxPersisted+1)
	}
	if res.CounterAfterRecovery != res.MaxPersisted {
		t.Errorf("counter recovered at %d, want the max %d", res.CounterAfterRecovery, res.MaxPersisted)
	}
	if len(res.DuplicateSeqs) > 0 || len(res.ReusedPersisted) > 0 {
		t.Errorf("duplicates %v, reused %v", res.DuplicateSeqs, res.ReusedPersisted)
	}
	for _, name := range []string{checker.NameSequenceUniqueness, checker.NameAckImpliesPersistence,
		checker.NameIdempotencySeqConsist, checker.NameLinearizability, checker.NameSequenceMonotonic} {
		if inv := invariant(t, res, name); inv.Status != checker.Pass {
			t.Errorf("%s: %s %s", name, inv.Status, inv.Detail)
		}
	}
	tl := res.Timeline
	order := []int64{tl.LoadStart, tl.StragglerInFlight, tl.CounterDeleted, tl.FirstCounterMissing, tl.Quiesced,
		tl.RecoveryStarted, tl.RecoveryWritten, tl.FirstSuccess, tl.LoadStopped}
	if slices.Contains(order, -1) || !slices.IsSorted(order) {
		t.Errorf("timeline out of order or incomplete: %+v", tl)
	}
	if tl.TimeToDetect() < 0 || tl.TimeToRecover() < tl.TimeToDetect() {
		t.Errorf("time to detect %d, to recover %d", tl.TimeToDetect(), tl.TimeToRecover())
	}
}

func TestCounterRecoveryRunbookPasses(t *testing.T) {
	for _, strategy := range []sequencer.Strategy{sequencer.TwoPhase, sequencer.Optimistic} {
		t.Run(string(strategy), func(t *testing.T) {
			cfg := smallConfig(t)
			cfg.Strategy = strategy
			res, err := drill.CounterRecovery(context.Background(), memstore.New(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			checkRunbookPassed(t, res)
			if v := res.Report.Valid; v == nil || !*v {
				t.Errorf("checker verdict not valid: %+v", res.Report.Invariants)
			}
			if len(res.Reissued) != 0 {
				t.Errorf("re-issued %v without orphans", res.Reissued)
			}
			if strategy == sequencer.TwoPhase && (res.StragglerSeq == 0 || res.StragglerSeq != res.MaxPersisted) {
				t.Errorf("straggler seq %d, want it counted as the max %d", res.StragglerSeq, res.MaxPersisted)
			}
		})
	}
}

// The runbook restores the highest persisted sequence, so orphaned
// allocations above it are handed out again: the drill accepts exactly
// that allocation_monotonicity failure and nothing else.
func TestCounterRecoveryReissuesOrphanedAllocations(t *testing.T) {
	cfg := smallConfig(t)
	cfg.Orphans = 2
	res, err := drill.CounterRecovery(context.Background(), memstore.New(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkRunbookPassed(t, res)
	want := []uint64{res.MaxPersisted + 1, res.MaxPersisted + 2}
	if !slices.Equal(res.Reissued, want) {
		t.Errorf("re-issued %v, want the two orphans %v", res.Reissued, want)
	}
	if inv := invariant(t, res, checker.NameAllocationMonotonicity); inv.Status != checker.Fail {
		t.Errorf("allocation_monotonicity %s: a re-issued allocation must be reported", inv.Status)
	}
}

// Broken recovery steps must fail the drill, each for the right reason.
func TestCounterRecoveryFailsABrokenRecovery(t *testing.T) {
	cases := []struct {
		name    string
		recover drill.Recoverer
		failing []string
	}{
		{"one below the max", drill.BelowMax(1), []string{
			"counter restored to the highest persisted sequence", "first new sequence is max+1",
			"no sequence acknowledged twice", "every invariant holds"}},
		{"reset to zero, as ADD without attribute_exists would", func(ctx context.Context, st store.Store, chat string) (uint64, error) {
			return 0, st.PutCounter(ctx, store.Counter{Chat: chat}, store.IfAbsent)
		}, []string{"counter restored to the highest persisted sequence", "first new sequence is max+1", "every invariant holds"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := smallConfig(t)
			cfg.Recover = c.recover
			res, err := drill.CounterRecovery(context.Background(), memstore.New(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if res.Passed {
				t.Fatal("the drill passed a recovery that re-issues persisted sequences")
			}
			for _, name := range c.failing {
				if e := expectation(t, res, name); e.OK {
					t.Errorf("%q passed: %s", name, e.Detail)
				}
			}
			if inv := invariant(t, res, checker.NameSequenceUniqueness); inv.Status != checker.Fail {
				t.Errorf("sequence_uniqueness %s, want fail", inv.Status)
			}
		})
	}
}

func TestUnsafeRecoveryDamageIsCaught(t *testing.T) {
	for _, c := range drill.Cases {
		t.Run(string(c), func(t *testing.T) {
			res, err := drill.UnsafeRecovery(context.Background(), memstore.New(), smallConfig(t), c)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Passed {
				t.Fatalf("unsafe drill did not pass: %v", failedExpectations(res))
			}
			if len(res.DuplicateSeqs) == 0 {
				t.Fatal("no sequence was acknowledged twice")
			}
			for _, name := range drill.CaughtBy {
				if inv := invariant(t, res, name); inv.Status != checker.Fail {
					t.Errorf("%s %s, want fail", name, inv.Status)
				}
			}
		})
	}
}

func TestUnsafeRacingWriterNeedsTwoPhase(t *testing.T) {
	cfg := smallConfig(t)
	cfg.Strategy = sequencer.Optimistic
	if _, err := drill.UnsafeRecovery(context.Background(), memstore.New(), cfg, drill.CaseRacingWriter); err == nil {
		t.Fatal("racing-writer ran under occ, where it cannot duplicate")
	}
	if _, err := drill.UnsafeRecovery(context.Background(), memstore.New(), smallConfig(t), "nope"); err == nil {
		t.Fatal("an unknown case ran")
	}
}

func TestDrillRefusesAnExistingChat(t *testing.T) {
	st := memstore.New()
	cfg := smallConfig(t)
	if err := st.CreateChat(context.Background(), cfg.Chat, []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := drill.CounterRecovery(context.Background(), st, cfg); err == nil {
		t.Fatal("the drill ran on a chat that already existed")
	}
}

func TestConfigValidate(t *testing.T) {
	bad := map[string]func(*drill.Config){
		"no writers":           func(c *drill.Config) { c.Writers = 0 },
		"no warm-up":           func(c *drill.Config) { c.Warmup = 0 },
		"no after":             func(c *drill.Config) { c.After = 0 },
		"after below orphans":  func(c *drill.Config) { c.Orphans, c.After = 5, 5 },
		"negative orphans":     func(c *drill.Config) { c.Orphans = -1 },
		"sync ratio 1":         func(c *drill.Config) { c.SyncRatio = 1 },
		"unknown strategy":     func(c *drill.Config) { c.Strategy = "paxos" },
		"orphans under occ":    func(c *drill.Config) { c.Strategy, c.Orphans = sequencer.Optimistic, 1 },
		"empty chat":           func(c *drill.Config) { c.Chat = "" },
		"no history":           func(c *drill.Config) { c.HistoryPath = "" },
		"non-positive timeout": func(c *drill.Config) { c.Timeout = 0 },
	}
	if err := drill.DefaultConfig().Validate(); err != nil {
		t.Fatalf("default config: %v", err)
	}
	for name, mutate := range bad {
		cfg := drill.DefaultConfig()
		mutate(&cfg)
		if err := cfg.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
