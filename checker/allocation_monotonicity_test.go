package checker

import (
	"slices"
	"strings"
	"testing"
)

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

// An allocation serves its persist, so it began no earlier than that was
// invoked: a trace whose start is earlier is taken from the invoke, with
// a warning. Taken as given, it overlapped an allocation that returned
// before its persist was invoked, with the higher sequence, and passed.
func TestAllocationMonotonicityStartBeforeItsInvoke(t *testing.T) {
	b := newHB()
	b.invoke(2, "A", "k2")
	a2 := b.alloc(2, "A", 2)
	b.invoke(1, "A", "k1")
	a1 := b.allocFrom(1, "A", 1, 0)
	r := b.check(t)
	mustFail(t, r, NameAllocationMonotonicity, a2, a1)
	if !slices.ContainsFunc(r.Warnings, func(w string) bool {
		return strings.Contains(w, "before its persist (line 4) was invoked at 30: its start is taken as 30")
	}) {
		t.Errorf("no warning of the start taken from the invoke: %q", r.Warnings)
	}
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
