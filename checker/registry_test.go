package checker

import (
	"testing"

	"github.com/chatseq/chatseq/history"
)

// invariantCase is a history that breaks one invariant and one that keeps
// it, each under a contract that promises it.
type invariantCase struct {
	breaks, keeps func() *hb
}

// promising is a builder under a contract that promises every invariant.
func promising() *hb {
	return newHBContract(history.Contract{
		Gaps: history.GapsForbidden, KeyReuse: history.KeyReuseReject, Events: history.EventsAtLeastOnce,
		CatchUp: history.CatchUpCursor, EventOrder: history.EventOrderPerChat,
	})
}

// keepsEverything keeps every invariant under promising's contract, with
// the evidence each reads: traces, a reader, a failed persist, final
// tables with events.
func keepsEverything() *hb {
	b := promising()
	b.send(1, "A", "k1", 1)
	b.send(2, "A", "k2", 2)
	b.invoke(3, "A", "k3")
	b.fail(3, "A", "k3", "throttled")
	b.add(history.Event{Kind: history.KindInvoke, Process: 4, F: history.FSync, Chat: "A", After: 0, Limit: 10, Reader: true})
	b.syncOK(4, "A", 1, 2)
	b.dump(true)
	return b
}

// everyInvariant breaks and keeps each registered invariant.
var everyInvariant = map[string]invariantCase{
	NameSequenceUniqueness: {breaks: func() *hb {
		b := newHB()
		b.invoke(1, "A", "k1")
		b.ok(1, "A", "k1", 1, "m1")
		b.invoke(2, "A", "k2")
		b.ok(2, "A", "k2", 1, "m2")
		return b
	}},
	NameNoZeroSequence: {breaks: func() *hb {
		b := newHB()
		b.invoke(1, "A", "k1")
		b.ok(1, "A", "k1", 0, "m1")
		return b
	}},
	NameAllocationMonotonicity: {breaks: func() *hb {
		b := newHB()
		b.invoke(1, "A", "k1")
		b.alloc(1, "A", 1)
		b.invoke(2, "A", "k2")
		b.alloc(2, "A", 1)
		return b
	}},
	NameSequenceMonotonic: {breaks: func() *hb {
		b := newHB()
		b.invoke(1, "A", "k1")
		b.ok(1, "A", "k1", 2, "m1")
		b.invoke(2, "A", "k2")
		b.ok(2, "A", "k2", 1, "m2")
		return b
	}},
	NameCounterIsLastAllocated: {breaks: func() *hb {
		b := newHB()
		b.send(1, "A", "k1", 1)
		b.counter("A", 3)
		return b
	}},
	NameSequenceMonotonicity: {breaks: func() *hb {
		b := newHB()
		b.send(1, "A", "k1", 2)
		b.counter("A", 1)
		b.msg("A", 2, "m-k1", "k1")
		return b
	}},
	NameCounterLowerBound: {breaks: func() *hb {
		b := newHB()
		b.counter("A", 1)
		b.msg("A", 1, "m1", "k1")
		b.msg("A", 2, "m2", "k2")
		return b
	}},
	NameIdempotencyGuarantee: {breaks: func() *hb {
		b := newHB()
		b.invoke(1, "A", "k1")
		b.ok(1, "A", "k1", 1, "m1")
		b.invoke(1, "A", "k1")
		b.dedup(1, "A", "k1", 2, "m2")
		return b
	}},
	NameIdempotencySeqConsist: {breaks: func() *hb {
		b := newHB()
		b.send(1, "A", "k1", 1)
		b.msg("A", 1, "m-k1", "k1")
		b.idem("A", "k1", 2, "m-k1")
		return b
	}},
	NameAckImpliesPersistence: {breaks: func() *hb {
		b := newHB()
		b.send(1, "A", "k1", 1)
		b.tableRead(history.TableMessages, 0)
		return b
	}},
	NameFailHasNoEffect: {breaks: func() *hb {
		b := newHB()
		b.invoke(1, "A", "k1")
		b.fail(1, "A", "k1", "throttled")
		b.msg("A", 1, "m1", "k1")
		return b
	}},
	NameNoPhantomMessages: {breaks: func() *hb {
		b := newHB()
		b.send(1, "A", "k1", 1)
		b.msg("A", 1, "m-k1", "k1")
		b.msg("A", 2, "m-x", "kx")
		return b
	}},
	NameGapIsAllocation: {breaks: func() *hb {
		b := newHB()
		b.send(1, "A", "k1", 1)
		b.counter("A", 3)
		b.msg("A", 1, "m-k1", "k1")
		return b
	}},
	NameGapless: {breaks: func() *hb {
		b := promising()
		b.send(1, "A", "k1", 1)
		b.send(2, "A", "k2", 3)
		b.dump(false)
		return b
	}},
	NameKeyReuse: {breaks: func() *hb {
		b := promising()
		b.invokeHash(1, "A", "k1", "h1")
		b.ok(1, "A", "k1", 1, "m1")
		b.invokeHash(2, "A", "k1", "h2")
		b.dedup(2, "A", "k1", 1, "m1")
		return b
	}},
	NameSyncCompleteness: {breaks: func() *hb {
		b := newHB()
		b.send(1, "A", "k1", 1)
		b.syncInvoke(2, "A", 0, 10)
		b.syncOKIDs(2, "A", nil, nil)
		return b
	}},
	NameEventCompleteness: {breaks: func() *hb {
		b := promising()
		b.send(1, "A", "k1", 1)
		b.send(2, "A", "k2", 2)
		b.event("A", 1, "m-k1", 0, 0)
		return b
	}},
	NameCatchUpCompleteness: {breaks: func() *hb {
		b := promising()
		b.send(1, "A", "k1", 1)
		b.send(2, "A", "k2", 2)
		b.add(history.Event{Kind: history.KindInvoke, Process: 4, F: history.FSync, Chat: "A", After: 0, Limit: 10, Reader: true})
		b.syncOK(4, "A", 2)
		return b
	}},
	NameEventOrder: {breaks: func() *hb {
		b := promising()
		b.send(1, "A", "k1", 1)
		b.send(2, "A", "k2", 2)
		b.event("A", 2, "m-k2", 0, 0)
		b.event("A", 1, "m-k1", 0, 1)
		return b
	}},
	NameAPIConformance: {breaks: func() *hb {
		b := newHB()
		b.invoke(1, "A", "k1")
		b.info(1, "A", "k1", "bad_response")
		return b
	}},
	NameLinearizability: {breaks: func() *hb {
		b := newHB()
		b.send(1, "A", "k1", 1)
		b.syncInvoke(2, "A", 0, 10)
		b.syncOKIDs(2, "A", nil, nil)
		return b
	}},
}

// TestEveryInvariantFailsAndPasses: every registered invariant fails on a
// history that breaks it and passes on one that keeps it, so none is
// registered without being judged.
func TestEveryInvariantFailsAndPasses(t *testing.T) {
	for _, inv := range registry {
		t.Run(inv.name, func(t *testing.T) {
			c, ok := everyInvariant[inv.name]
			if !ok {
				t.Fatalf("%s is registered without a history that breaks it and one that keeps it (everyInvariant)", inv.name)
			}
			keeps := keepsEverything
			if c.keeps != nil {
				keeps = c.keeps
			}
			must(t, c.breaks().check(t), inv.name, Fail)
			must(t, keeps().check(t), inv.name, Pass)
		})
	}
	for name := range everyInvariant {
		if _, ok := invariantOf(name); !ok {
			t.Errorf("everyInvariant has %s, which the registry does not", name)
		}
	}
}
