package checker

import "testing"

func TestAllocationMonotonicityRepeatedValue(t *testing.T) {
	b := newHB()
	b.invoke(1, "A", "k1")
	b.invoke(2, "A", "k2")
	a1 := b.alloc(1, "A", 1)
	a2 := b.alloc(2, "A", 1)
	r := b.check(t)
	res := mustFail(t, r, NameAllocationMonotonicity, a1, a2)
	mustContain(t, res.Detail, "more than once")
}

func TestAllocationMonotonicityOrderViolation(t *testing.T) {
	b := newHB()
	first := b.send(1, "A", "k1", 2)
	inv := b.invoke(2, "A", "k2") // invoked after the allocation of 2 returned
	a := b.alloc(2, "A", 1)
	b.ok(2, "A", "k2", 1, "m-k2")
	r := b.check(t)
	res := mustFail(t, r, NameAllocationMonotonicity, first.alloc, inv, a)
	mustContain(t, res.Detail, `chat "A"`)
}

func TestAllocationMonotonicityExplicitStart(t *testing.T) {
	// The trace's own start narrows the interval: allocation 1 began after
	// allocation 2 had returned although both operations overlap.
	b := newHB()
	b.invoke(1, "A", "k1")
	b.invoke(2, "A", "k2")
	a2 := b.alloc(2, "A", 2)
	a1 := b.allocFrom(1, "A", 1, b.now+5)
	r := b.check(t)
	mustFail(t, r, NameAllocationMonotonicity, a2, a1)

	// Without the start the same allocations overlap: either order is fine.
	b = newHB()
	b.invoke(1, "A", "k1")
	b.invoke(2, "A", "k2")
	b.alloc(2, "A", 2)
	b.alloc(1, "A", 1)
	must(t, b.check(t), NameAllocationMonotonicity, Pass)
}

func TestAllocationMonotonicityPassAndNotApplicable(t *testing.T) {
	b := newHB()
	b.send(1, "A", "k1", 1)
	b.send(1, "A", "k2", 2)
	b.send(2, "B", "k3", 1) // chats are independent
	must(t, b.check(t), NameAllocationMonotonicity, Pass)

	b = newHB()
	b.invoke(1, "A", "k1")
	b.ok(1, "A", "k1", 1, "m")
	na := mustNA(t, b.check(t), NameAllocationMonotonicity)
	mustContain(t, na.Reason, "no allocate traces")
}

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
