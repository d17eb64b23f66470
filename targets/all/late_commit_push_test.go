package all_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/internal/evidence"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/targets"
)

// ADR-004 as written lets sequence n+1 commit, be pushed and be passed by
// a receiver's gap sync while n is still committing; when n then lands
// while the receiver is offline, its catch-up from last_acked_sequence
// (ADR-001 §4) starts above n, and n never reaches it: eventual_visibility
// fails. The watermark design (--variant sync-watermark) serves a sync
// only below the lowest sequence in flight, so no cursor passes n, and it
// passes. Slow commits (--slow-commit) and receivers that stay offline
// after a drop (--drop-connections-for) make the window likely rather
// than a scheduler's accident: as written a run loses a late commit
// within a few seeds (a busy machine may open no window on one), and
// every seed passes with the watermark.
func TestADR004LosesLateCommitsToReceiversUnderDrops(t *testing.T) {
	seeds := int64(5)
	if raceEnabled {
		seeds = 2
	}
	for _, variant := range []sequencer.Variant{sequencer.Correct, sequencer.SyncWatermark} {
		name := "as-written"
		if variant != sequencer.Correct {
			name = string(variant)
		}
		t.Run(name, func(t *testing.T) {
			if variant == sequencer.Correct {
				// A busy machine stretches the slow commits and the
				// drops alike: a run may open no window, lose nothing
				// and pass, proving nothing (ci-clone85's seed 1, on a
				// slow VM without the race detector). A loss within
				// evidence's budget; the watermark passes every seed.
				evidence.Rerun(t, evidence.Default, func(n int) string {
					rep := runLateCommitDrops(t, variant, int64(n))
					if inv, ok := rep.Result(checker.NameEventualVisibility); !ok || inv.Status != checker.Fail {
						return fmt.Sprintf("seed %d lost no late commit to a receiver (%s: %s)", n, checker.NameEventualVisibility, inv.Status)
					}
					return ""
				})
				return
			}
			for seed := int64(1); seed <= seeds; seed++ {
				rep := runLateCommitDrops(t, variant, seed)
				inv, ok := rep.Result(checker.NameEventualVisibility)
				if !ok {
					t.Fatalf("seed %d: %s was not reported", seed, checker.NameEventualVisibility)
				}
				switch {
				case variant == sequencer.Correct && inv.Status != checker.Fail:
					t.Errorf("seed %d: ADR-004 as written: %s is %s (%s), want fail", seed, inv.Name, inv.Status, inv.Detail)
				case variant != sequencer.Correct && inv.Status != checker.Pass:
					t.Errorf("seed %d: --variant %s: %s is %s (%s), want pass", seed, variant, inv.Name, inv.Status, inv.Detail)
				case variant != sequencer.Correct && (rep.Valid == nil || !*rep.Valid):
					t.Errorf("seed %d: --variant %s: the run was not judged valid: %s", seed, variant, failedNames(rep))
				}
			}
		})
	}
}

// runLateCommitDrops is `chatseq bench --receivers 4
// --drop-connections-every 200ms --drop-connections-for 100ms
// --slow-commit 0.02 --ops 2000 --duration 0 --seed SEED [--variant V]`.
func runLateCommitDrops(t *testing.T, variant sequencer.Variant, seed int64) checker.Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	o, err := targets.Open(ctx, "memory", targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	cfg := bench.DefaultConfig()
	cfg.Variant, cfg.Seed = variant, seed
	cfg.Ops, cfg.Duration = 2000, 0
	cfg.Receivers = 4
	cfg.DropConnectionsEvery, cfg.DropConnectionsFor = 200*time.Millisecond, 100*time.Millisecond
	cfg.Faults.SlowCommit = 0.02
	cfg.Contract = o.Contract
	cfg.HistoryPath = filepath.Join(t.TempDir(), fmt.Sprintf("late-commit-%s-%d.jsonl", variant, seed))
	if _, err := bench.RunTarget(ctx, cfg, o.Factory); err != nil {
		t.Fatalf("seed %d: run: %v", seed, err)
	}
	h, err := history.ReadFile(cfg.HistoryPath)
	if err != nil {
		t.Fatalf("seed %d: reading the history back: %v", seed, err)
	}
	return checker.Check(h, checker.Options{})
}

// failedNames lists the invariants rep failed or could not decide.
func failedNames(rep checker.Report) []string {
	var out []string
	for _, r := range rep.Invariants {
		if r.Status != checker.Pass {
			out = append(out, fmt.Sprintf("%s %s: %s", r.Name, r.Status, r.Detail))
		}
	}
	return out
}
