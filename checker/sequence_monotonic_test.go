package checker

import "testing"

func TestSequenceMonotonicFails(t *testing.T) {
	b := newHB()
	first := b.send(1, "A", "k1", 5)
	inv := b.invoke(2, "A", "k2")
	ok := b.ok(2, "A", "k2", 3, "m-k2")
	r := b.check(t)
	mustFail(t, r, NameSequenceMonotonic, first.ok, inv, ok)

	// Equal sequences acked one after the other also violate "smaller".
	b = newHB()
	first = b.send(1, "A", "k1", 4)
	inv = b.invoke(2, "A", "k2")
	ok = b.ok(2, "A", "k2", 4, "m-k2")
	mustFail(t, b.check(t), NameSequenceMonotonic, first.ok, inv, ok)
}

func TestSequenceMonotonicPasses(t *testing.T) {
	// ADR-004's two-phase race: B commits 12 before A commits 11 while the
	// two overlap — allowed in real time, though not in ADR-001's literal
	// persisted_at form.
	b := newHB()
	b.invoke(1, "A", "a")
	b.invoke(2, "A", "b")
	b.ok(2, "A", "b", 12, "m-b")
	b.ok(1, "A", "a", 11, "m-a")
	// A replay answering an old key later is not a new message.
	b.invoke(3, "A", "a")
	b.dedup(3, "A", "a", 11, "m-a")
	b.send(1, "A", "c", 13)
	must(t, b.check(t), NameSequenceMonotonic, Pass)

	b = newHB()
	b.invoke(1, "A", "a")
	b.fail(1, "A", "a", "not_a_member")
	na := mustNA(t, b.check(t), NameSequenceMonotonic)
	mustContain(t, na.Reason, "no persist was acknowledged")
}
