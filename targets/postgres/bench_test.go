package postgres

import (
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/checker/checkertest"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/sequencer"
)

// variantOf passes a target variant through the runner's Variant field.
func variantOf(v Variant) sequencer.Variant { return sequencer.Variant(v) }

// The design as written passes its own contract under every fault the
// runner injects: server crashes around the commit, stale idempotency
// reads, concurrent and late duplicates, a relay that crashes between
// publish and mark, Kafka down for a window, the database slow and then
// down for a window.
//
// Its order promise (event_order) is not judged here: concurrent senders
// break it with no fault at all (ordering_test.go).
func TestDesignPassesItsContractUnderFaults(t *testing.T) {
	cfg := benchConfig(t, 8, 16, 2500*time.Millisecond)
	cfg.Contract.EventOrder = history.EventOrderNone
	cfg.Timed = []bench.TimedFault{
		{Kind: bench.KafkaOutage, At: 300 * time.Millisecond, For: 500 * time.Millisecond},
		{Kind: bench.StoreLatency, At: 1000 * time.Millisecond, For: 300 * time.Millisecond, Latency: 5 * time.Millisecond},
		{Kind: bench.StoreStall, At: 1500 * time.Millisecond, For: 300 * time.Millisecond},
	}
	// A quarter of the relay passes crash: the seeded draws put a crash
	// among the first few passes, however slow the run.
	res, rep, h := runAndCheck(t, cfg, Config{RelayCrash: 0.25})
	checkertest.RequireValid(t, rep)

	if res.Counts.PersistOK == 0 || res.Persisted == 0 {
		t.Fatalf("nothing persisted: %+v", res.Counts)
	}
	// Each fault must have bitten, or the pass above proves little.
	if res.Counts.ErrorCodes[CodeDBUnavailable] == 0 {
		t.Errorf("no send met the db-down window: %v", res.Counts.ErrorCodes)
	}
	if res.Counts.ErrorCodes[CodeCommitUnacknowledged] == 0 {
		t.Logf("no COMMIT fell into the db-down window this run: %v", res.Counts.ErrorCodes)
	}
	_, dups := topicOrder(h)
	if dups == 0 {
		t.Errorf("relay crashes at 25%% per pass produced no duplicate event")
	}
	if res.Events < int(res.Counts.PersistOK-res.Counts.Dedup) {
		t.Errorf("%d events for %d new acks", res.Events, res.Counts.PersistOK-res.Counts.Dedup)
	}
	// Sequences taken before BEGIN leave gaps when the transaction does
	// not commit: the contract allows them, the gap check explains them.
	if r := checkertest.Verdict(t, rep, checker.NameGapIsAllocation); r.Status != checker.Pass {
		t.Errorf("gaps unexplained: %s", r.Detail)
	}
	if rep.Stats.Gaps == 0 {
		t.Errorf("crashes after the sequence was taken left no gap")
	}
}

// Each broken variant is caught by the invariant it names.
func TestBrokenVariantsAreCaught(t *testing.T) {
	for _, v := range Variants {
		if v.CaughtBy == "" {
			continue
		}
		t.Run(string(v.Variant), func(t *testing.T) {
			cfg := benchConfig(t, 8, 16, 1500*time.Millisecond)
			cfg.Variant = variantOf(v.Variant)
			// A Kafka outage makes the relay's failure path run as well.
			cfg.Timed = []bench.TimedFault{{Kind: bench.KafkaOutage, At: 300 * time.Millisecond, For: 300 * time.Millisecond}}
			cfg.Faults.CrashAfterPersist = 0.05
			_, rep, _ := runAndCheck(t, cfg, Config{RelayCrash: 0.1})
			r := checkertest.Verdict(t, rep, v.CaughtBy)
			if r.Status != checker.Fail {
				t.Fatalf("%s: %s is %s (%s), want fail", v.Variant, v.CaughtBy, r.Status, r.Detail)
			}
			t.Logf("%s caught: %s", v.CaughtBy, r.Detail)
		})
	}
}

// The alternative that takes the sequence inside the transaction passes
// the stricter contract: no gaps at all, even with crashes.
func TestSequenceInTxIsGapless(t *testing.T) {
	cfg := benchConfig(t, 8, 8, 1500*time.Millisecond)
	cfg.Variant = variantOf(SequenceInTx)
	cfg.Contract.Gaps = "forbidden"
	_, rep, _ := runAndCheck(t, cfg, Config{RelayCrash: 0.02})
	checkertest.RequireValid(t, rep)
	if r := checkertest.Verdict(t, rep, checker.NameGapless); r.Status != checker.Pass {
		t.Fatalf("gapless: %s %s", r.Status, r.Detail)
	}
}

// ADR-004 §10's crash before allocation, here before step 2 takes the
// sequence: nothing is written, the client sees info, and since no
// sequence was taken no gap follows.
func TestCrashBeforeAllocateIsInfoAndLeavesNoGap(t *testing.T) {
	cfg := benchConfig(t, 6, 6, 0)
	cfg.Ops = 400
	cfg.Faults = bench.FaultRates{CrashBeforeAllocate: 0.1}
	cfg.DuplicateAfterOK, cfg.ConcurrentDuplicate = 0, 0
	cfg.Contract.EventOrder = history.EventOrderNone // ordering_test.go judges order
	res, rep, _ := runAndCheck(t, cfg, Config{RelayCrash: 0})
	checkertest.RequireValid(t, rep)
	if res.Counts.ErrorCodes[sequencer.CodeCrashBeforeAllocate] == 0 || res.Counts.Fail != 0 {
		t.Fatalf("crashes before allocating: codes %v, %d fail (want info only)", res.Counts.ErrorCodes, res.Counts.Fail)
	}
	if rep.Stats.Gaps != 0 {
		t.Errorf("%d gaps: a crash before allocating took a sequence", rep.Stats.Gaps)
	}
}
