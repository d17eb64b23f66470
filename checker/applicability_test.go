package checker

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history"
)

// clientOnly is what another system records from its clients: operations,
// no allocate traces, no final state. It is valid: two writers, a retry
// answered as a replay, a timeout whose message a reader then saw.
func clientOnly(withSync bool) *hb {
	b := newHB()
	b.invoke(1, "A", "k1")
	b.ok(1, "A", "k1", 1, "m-k1")
	b.invoke(2, "A", "k2")
	b.info(2, "A", "k2", "timeout")
	b.invoke(2, "A", "k2")
	b.ok(2, "A", "k2", 2, "m-k2")
	b.invoke(1, "A", "k2")
	b.dedup(1, "A", "k2", 2, "m-k2")
	b.invoke(3, "B", "k3")
	b.ok(3, "B", "k3", 1, "m-k3")
	if withSync {
		b.syncInvoke(4, "A", 0, 10)
		b.syncOKIDs(4, "A", []uint64{1, 2}, []string{"m-k1", "m-k2"})
	}
	return b
}

// A client-only history holds none of what several invariants read: they
// are not applicable, with the reason, and the history passes.
func TestClientOnlyHistoryPasses(t *testing.T) {
	r := clientOnly(false).check(t)
	mustAllPass(t, r)
	if len(r.Invariants)+len(r.NotApplicable) != len(InvariantNames) {
		t.Fatalf("%d judged + %d n/a, want %d", len(r.Invariants), len(r.NotApplicable), len(InvariantNames))
	}
	for name, reason := range map[string]string{
		NameAllocationMonotonicity: "no allocate traces",
		NameCounterIsLastAllocated: "no final counters lines",
		NameSequenceMonotonicity:   "no final counters lines",
		NameCounterLowerBound:      "no final counters lines",
		NameIdempotencySeqConsist:  "no final idempotency lines",
		NameAckImpliesPersistence:  "4 acks but no final messages lines",
		NameGapIsAllocation:        "no final counters or messages lines",
		NameSyncCompleteness:       "no sync in the history",
		NameEventCompleteness:      "no final events lines",
		NameGapless:                "contract gaps: allowed",
		NameKeyReuse:               "contract key_reuse: return-original",
	} {
		mustContain(t, mustNA(t, r, name).Reason, reason)
	}
	for _, name := range []string{NameSequenceUniqueness, NameNoZeroSequence, NameSequenceMonotonic, NameIdempotencyGuarantee, NameLinearizability} {
		must(t, r, name, Pass)
	}
	// Evidence that is there is still judged: a sync.
	must(t, clientOnly(true).check(t), NameSyncCompleteness, Pass)
	// And a violation in the operations still fails.
	b := clientOnly(false)
	b.invoke(5, "A", "k9")
	l := b.ok(5, "A", "k9", 2, "m-k9")
	mustFail(t, b.check(t), NameSequenceUniqueness, 7, l)
}

// A header-only history: every invariant is not applicable, and the
// history passes; --require makes the ones it names unknown.
func TestEmptyHistory(t *testing.T) {
	b := newHB()
	r := b.check(t)
	if len(r.Invariants) != 0 || len(r.NotApplicable) != len(InvariantNames) || r.ExitCode() != 0 {
		t.Fatalf("%d judged, %d n/a, exit %d:\n%s", len(r.Invariants), len(r.NotApplicable), r.ExitCode(), reportText(r))
	}
	mustContain(t, mustNA(t, r, NameLinearizability).Reason, "no persist or sync operations to linearize")
	r = Check(&b.h, Options{Require: []string{NameLinearizability}})
	mustContain(t, must(t, r, NameLinearizability, Unknown).Detail, "required, but not applicable: no persist or sync")
	if r.ExitCode() != 3 {
		t.Fatalf("exit %d", r.ExitCode())
	}
}

// Require turns not applicable into unknown for the invariants it names,
// and leaves judged ones alone.
func TestRequire(t *testing.T) {
	b := clientOnly(false)
	r := Check(&b.h, Options{Require: []string{NameSyncCompleteness, NameSequenceUniqueness, NameGapless}})
	res := must(t, r, NameSyncCompleteness, Unknown)
	if res.Detail != "required, but not applicable: no sync in the history" {
		t.Fatalf("detail %q", res.Detail)
	}
	mustContain(t, must(t, r, NameGapless, Unknown).Detail, "required, but not applicable: contract gaps: allowed")
	must(t, r, NameSequenceUniqueness, Pass)
	mustNA(t, r, NameAckImpliesPersistence) // not required
	if r.Valid != nil || r.ExitCode() != 3 {
		t.Fatalf("valid %v, exit %d", r.Valid, r.ExitCode())
	}
	// In report order, not the order required.
	var names []string
	for _, inv := range r.Invariants {
		names = append(names, inv.Name)
	}
	if !slices.IsSortedFunc(names, func(a, b string) int { return slices.Index(InvariantNames, a) - slices.Index(InvariantNames, b) }) {
		t.Fatalf("invariants out of order: %v", names)
	}

	// Required and judged: as judged.
	b = clientOnly(true)
	r = Check(&b.h, Options{Require: []string{NameSyncCompleteness}})
	must(t, r, NameSyncCompleteness, Pass)
	if r.ExitCode() != 0 {
		t.Fatalf("exit %d", r.ExitCode())
	}

	// A name the checker does not report is ignored with a warning.
	r = Check(&b.h, Options{Require: []string{"sync_complete"}})
	if r.ExitCode() != 0 || !slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.Contains(w, `--require "sync_complete": not an invariant`) }) {
		t.Fatalf("exit %d, warnings %q", r.ExitCode(), r.Warnings)
	}
}

// cutHistory is a correct run whose recorder was killed halfway through
// the final state: the header promised an end line, and the messages table
// stops after k1's line. Read whole, that table would prove violations that
// never happened.
func cutHistory(cut bool) *hb {
	b := newHBContract(history.Contract{Events: history.EventsAtLeastOnce})
	b.h.Header.EndLine = true
	b.send(1, "A", "k1", 1)
	b.invoke(2, "A", "k2")
	b.alloc(2, "A", 2)
	b.info(2, "A", "k2", "timeout") // it took effect: a reader saw it
	b.commit("A", "k2", 2, "m-k2")
	b.syncInvoke(3, "A", 0, 10)
	b.syncOK(3, "A", 1, 2)
	b.send(1, "A", "k3", 3)
	b.counter("A", 3)
	b.msg("A", 1, "m-k1", "k1")
	if !cut {
		b.msg("A", 2, "m-k2", "k2")
		b.msg("A", 3, "m-k3", "k3")
		for i, m := range b.committed {
			b.idem(m.Chat, m.Key, m.Seq, m.MessageID)
			b.event(m.Chat, m.Seq, m.MessageID, 0, int64(i))
		}
		b.h.End = b.line + 1
	}
	return b
}

// A history cut short in its final state: every invariant that reads final
// lines is unknown, never fail; the others are judged as usual;
// linearizability is judged without the final table.
func TestCutShortFinalState(t *testing.T) {
	// Complete, it passes.
	mustAllPass(t, cutHistory(false).check(t))

	b := cutHistory(true)
	// The same lines in a file that promised nothing are taken as
	// complete: the cut table is read as the final state, and fails.
	b.h.Header.EndLine = false
	r := b.check(t)
	for _, name := range []string{NameAckImpliesPersistence, NameSyncCompleteness, NameLinearizability} {
		must(t, r, name, Fail)
	}

	// Unless the file ended inside a line: its writer was killed
	// mid-write, perhaps in the final state (an outside walk-through's
	// file, cut inside a final line, failed the message being written).
	b.h.CutMidLine = b.line + 1
	r = b.check(t)
	for _, name := range []string{NameAckImpliesPersistence, NameSyncCompleteness} {
		mustContain(t, must(t, r, name, Unknown).Detail, fmt.Sprintf("the file ends inside line %d (its writer was killed mid-line), so its final state may be cut short", b.line+1))
	}
	b.h.CutMidLine = 0

	b.h.Header.EndLine = true
	r = b.check(t)
	for _, res := range r.Invariants {
		if res.Status == Fail {
			t.Errorf("%s failed in a history cut short: %s", res.Name, res.Detail)
		}
	}
	for _, name := range []string{NameSequenceUniqueness, NameNoZeroSequence, NameCounterIsLastAllocated, NameSequenceMonotonicity,
		NameCounterLowerBound, NameIdempotencyGuarantee, NameIdempotencySeqConsist, NameAckImpliesPersistence,
		NameGapIsAllocation, NameSyncCompleteness, NameEventCompleteness} {
		res := must(t, r, name, Unknown)
		if !strings.HasPrefix(res.Detail, "the final state was cut short") {
			t.Errorf("%s: %s", name, res.Detail)
		}
	}
	must(t, r, NameAllocationMonotonicity, Pass)
	must(t, r, NameSequenceMonotonic, Pass)
	mustContain(t, must(t, r, NameLinearizability, Pass).Detail, "judged without the final tables, which were cut short")
	mustNA(t, r, NameGapless) // by the contract, whatever the history holds
	mustNA(t, r, NameKeyReuse)
	if r.Valid != nil || r.ExitCode() != 3 || r.Stats.Messages != 0 {
		t.Fatalf("valid %v, exit %d, messages %d", r.Valid, r.ExitCode(), r.Stats.Messages)
	}
	if !slices.ContainsFunc(r.Warnings, func(w string) bool {
		return strings.Contains(w, "the final state was cut short") && strings.Contains(w, "none of its 2 final lines is judged")
	}) {
		t.Fatalf("warnings %q", r.Warnings)
	}

	// A violation the operations alone prove still fails.
	b.h.Finals, b.line = nil, b.line-2
	b.invoke(4, "A", "k4")
	l := b.ok(4, "A", "k4", 3, "m-k4")
	b.counter("A", 3)
	r = b.check(t)
	res := mustFail(t, r, NameSequenceUniqueness, l, 12)
	mustContain(t, res.Detail, "this violation is in the operations alone")
	must(t, r, NameAckImpliesPersistence, Unknown)
}

// Cut short before any final line (killed while the writers ran): the
// final-state invariants are unknown, not the n/a a client-only history
// gets.
func TestCutShortBeforeTheFinalState(t *testing.T) {
	b := clientOnly(true)
	b.h.Header.EndLine = true
	r := b.check(t)
	mustContain(t, must(t, r, NameAckImpliesPersistence, Unknown).Detail, "the final state was cut short (the header promises an end line and the file has none); over the operations alone: 4 acks but no final messages lines")
	must(t, r, NameSyncCompleteness, Unknown)
	must(t, r, NameLinearizability, Pass)
	if r.ExitCode() != 3 {
		t.Fatalf("exit %d", r.ExitCode())
	}
	b.h.End = b.line + 1
	if r := b.check(t); r.ExitCode() != 0 {
		t.Fatalf("complete: exit %d\n%s", r.ExitCode(), reportText(r))
	}
}

// A part of an invariant whose evidence is absent is not judged, and the
// detail says so; the rest is judged.
func TestPartsWithoutEvidence(t *testing.T) {
	b := newHB()
	b.send(1, "A", "k1", 1)
	b.event("A", 1, "m-k1", 0, 0)
	r := b.check(t)
	mustContain(t, must(t, r, NameEventCompleteness, Pass).Detail, "1 ack published (no final messages lines: 1 event at an acknowledged sequence compared with its ack, the others not judged)")
	mustContain(t, must(t, r, NameIdempotencyGuarantee, Pass).Detail, "every ok response agrees (no final messages lines: 'at most one message per key' not judged)")
	b.send(1, "A", "k2", 2)
	mustFail(t, b.check(t), NameEventCompleteness, b.line)
}
