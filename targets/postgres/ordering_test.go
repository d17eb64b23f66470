package postgres

import (
	"strings"
	"testing"
	"time"

	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/checker/checkertest"
)

// §5 claims strict per-conversation ordering for consumers "because
// sequence numbers are monotonically assigned prior to the DB
// transaction". Concurrent senders to one conversation take sequences in
// one order and commit in another, and the relay publishes what is
// committed, oldest transaction first: the topic carries a conversation's
// events out of sequence order. No fault is injected and relay crashes are
// off, so every inversion comes from the design itself.
func TestOrderingClaimFailsUnderConcurrentSenders(t *testing.T) {
	cfg := benchConfig(t, 12, 2, 1500*time.Millisecond)
	cfg.Faults = noFaults()
	cfg.DuplicateAfterOK, cfg.ConcurrentDuplicate = 0, 0
	_, rep, h := runAndCheck(t, cfg, Config{RelayCrash: 0})
	checkertest.RequireValid(t, rep)
	inversions, dups := topicOrder(h)
	if dups != 0 {
		t.Fatalf("%d duplicate events without relay crashes or Kafka failures", dups)
	}
	if inversions == 0 {
		t.Fatal("12 concurrent senders on 2 conversations produced no out-of-order event: the claim would hold")
	}
	if !warned(rep, "out of sequence order") {
		t.Errorf("the checker did not warn about the order: %v", rep.Warnings)
	}
	t.Logf("%d events follow a higher sequence of their conversation on the topic; %d late commits below a sync cursor; warnings: %v",
		inversions, rep.Stats.LateCommits, rep.Warnings)
}

// Taking the sequence inside the transaction serialises a conversation's
// sends on its counter row: they commit in sequence order, get outbox ids
// in that order, and the relay (ordering by id) publishes them in order.
func TestSequenceInTxPublishesInOrder(t *testing.T) {
	cfg := benchConfig(t, 12, 2, 1500*time.Millisecond)
	cfg.Faults = noFaults()
	cfg.DuplicateAfterOK, cfg.ConcurrentDuplicate = 0, 0
	cfg.Variant = variantOf(SequenceInTx)
	cfg.Contract.Gaps = "forbidden"
	_, rep, h := runAndCheck(t, cfg, Config{RelayCrash: 0})
	checkertest.RequireValid(t, rep)
	if inversions, dups := topicOrder(h); inversions != 0 || dups != 0 {
		t.Fatalf("%d inversions and %d duplicates on the topic, want none", inversions, dups)
	}
	if rep.Stats.LateCommits != 0 {
		t.Errorf("%d late commits below a sync cursor, want none", rep.Stats.LateCommits)
	}
	if r := checkertest.Verdict(t, rep, checker.NameEventCompleteness); r.Status != checker.Pass {
		t.Fatalf("event_completeness %s: %s", r.Status, r.Detail)
	}
}

func warned(rep checker.Report, substr string) bool {
	for _, w := range rep.Warnings {
		if strings.Contains(w, substr) {
			return true
		}
	}
	return false
}
