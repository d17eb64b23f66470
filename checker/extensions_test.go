package checker

import (
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history"
)

// A run that starts every counter at 10 (ADR-004 scenario 1) declares it in
// the header; sequences up to 10 are not this run's gaps.
func TestInitialCounterExtension(t *testing.T) {
	build := func(declare bool) Report {
		b := newHB()
		if declare {
			b.h.Header.Extra = map[string]string{history.SoleWriterField: "true", "initial_counter": "10"}
		}
		b.send(1, "A", "uuid-1", 11)
		b.dump(false)
		return b.check(t)
	}
	r := build(true)
	must(t, r, NameGapIsAllocation, Pass)
	must(t, r, NameCounterIsLastAllocated, Pass)

	r = build(false)
	res := must(t, r, NameGapIsAllocation, Fail)
	if !strings.Contains(res.Detail, "neither a message nor a traced allocation") {
		t.Fatalf("undeclared initial counter: %s", res.Detail)
	}
}

// A persist whose answer was lost (a timeout) may have allocated without a
// trace: that explains one sequence, not two.
func TestUnknownOutcomeExplainsOneUntracedAllocation(t *testing.T) {
	build := func(lostAllocations uint64) Report {
		b := newHB()
		b.send(1, "A", "k1", 1)
		b.invoke(2, "A", "k2")
		b.info(2, "A", "k2", "timeout")
		b.send(3, "A", "k3", 1+lostAllocations+1)
		for _, c := range b.chats {
			b.counter(c, 1+lostAllocations+1)
		}
		for _, m := range b.committed {
			b.msg(m.Chat, m.Seq, m.MessageID, m.Key)
			b.idem(m.Chat, m.Key, m.Seq, m.MessageID)
		}
		return b.check(t)
	}
	r := build(1)
	must(t, r, NameGapIsAllocation, Pass)
	if r.Stats.GapCauses["unknown_outcome"] != 1 {
		t.Fatalf("gap causes %v, want one unknown_outcome", r.Stats.GapCauses)
	}
	r = build(2)
	res := must(t, r, NameGapIsAllocation, Fail)
	if len(res.Lines) == 0 {
		t.Fatal("no counterexample lines")
	}
}

// The counter ahead of the last traced allocation by allocations that
// unknown-outcome persists may have made is explained; further is not.
func TestCounterAheadByUnknownOutcomes(t *testing.T) {
	build := func(counter uint64) Report {
		b := newHB()
		b.send(1, "A", "k1", 1)
		b.invoke(2, "A", "k2")
		b.info(2, "A", "k2", "timeout")
		b.counter("A", counter)
		for _, m := range b.committed {
			b.msg(m.Chat, m.Seq, m.MessageID, m.Key)
			b.idem(m.Chat, m.Key, m.Seq, m.MessageID)
		}
		return b.check(t)
	}
	must(t, build(2), NameCounterIsLastAllocated, Pass)
	must(t, build(3), NameCounterIsLastAllocated, Fail)
}
