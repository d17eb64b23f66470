package ledger

import (
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/checker/checkertest"
	"github.com/chatseq/chatseq/sequencer"
)

// The ledger keeps its contract (gapless, key reuse rejected) through
// leader crashes with writes in flight, leadership transfers mid-write, the
// leader cut off for a window and a slow leader, with concurrent and late
// duplicates, cold leader caches and clients reusing keys.
func TestLedgerPassesItsContractUnderFaults(t *testing.T) {
	cfg := benchConfig(t, 8, 16, 2500*time.Millisecond)
	cfg.ReuseKey = 0.02
	cfg.Timed = []bench.TimedFault{
		{Kind: bench.StoreStall, At: 800 * time.Millisecond, For: 500 * time.Millisecond},
		{Kind: bench.StoreLatency, At: 1600 * time.Millisecond, For: 200 * time.Millisecond, Latency: 2 * time.Millisecond},
	}
	res, rep, counts := runAndCheck(t, cfg, testConfig())
	checkertest.RequireValid(t, rep)
	for _, name := range []string{checker.NameGapless, checker.NameKeyReuse, checker.NameIdempotencyGuarantee} {
		if r := checkertest.Verdict(t, rep, name); r.Status != checker.Pass {
			t.Errorf("%s: %s %s", name, r.Status, r.Detail)
		}
	}
	if counts.Crashes == 0 || counts.Transfers == 0 || counts.Cuts != 1 {
		t.Errorf("faults did not all happen: %+v", counts)
	}
	if res.Counts.ErrorCodes[CodeKeyReused] == 0 {
		t.Errorf("no reused key was rejected: %v", res.Counts.ErrorCodes)
	}
	t.Logf("%.0f ops/s, faults %+v, error codes %v", res.Throughput(), counts, res.Counts.ErrorCodes)
}

// Each broken variant is caught by the invariant it names.
func TestBrokenVariantsAreCaught(t *testing.T) {
	for _, v := range Variants {
		t.Run(string(v.Variant), func(t *testing.T) {
			cfg := benchConfig(t, 8, 8, 1500*time.Millisecond)
			cfg.Variant = variantOf(v.Variant)
			cfg.ReuseKey = 0.02
			_, rep, counts := runAndCheck(t, cfg, testConfig())
			r := checkertest.Verdict(t, rep, v.CaughtBy)
			if r.Status != checker.Fail {
				t.Fatalf("%s: %s is %s (%s), want fail; faults %+v", v.Variant, v.CaughtBy, r.Status, r.Detail, counts)
			}
			t.Logf("%s caught: %s", v.CaughtBy, r.Detail)
		})
	}
}

// ADR-004 §10's crash before allocation, here before proposing: the write
// never enters the log, the client sees info, and its retry is a new
// write; the ledger stays gapless.
func TestCrashBeforeProposingIsInfoAndLeavesNoGap(t *testing.T) {
	cfg := benchConfig(t, 6, 6, 0)
	cfg.Ops = 600
	cfg.Faults = bench.FaultRates{CrashBeforeAllocate: 0.1}
	cfg.DuplicateAfterOK, cfg.ConcurrentDuplicate = 0, 0
	res, rep, _ := runAndCheck(t, cfg, testConfig())
	checkertest.RequireValid(t, rep)
	if r := checkertest.Verdict(t, rep, checker.NameGapless); r.Status != checker.Pass {
		t.Errorf("gapless: %s %s", r.Status, r.Detail)
	}
	// A loaded machine can starve the Raft heartbeats: a write refused
	// for want of a leader is a fail of its own (no_leader), not one of
	// the crashes'.
	if res.Counts.ErrorCodes[sequencer.CodeCrashBeforeAllocate] == 0 || res.Counts.Fail != res.Counts.ErrorCodes[CodeNoLeader] {
		t.Fatalf("crashes before proposing: codes %v, %d fail (want info only, but for no_leader)", res.Counts.ErrorCodes, res.Counts.Fail)
	}
}
