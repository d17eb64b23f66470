package checker

import "fmt"

// NameAllocationMonotonicity is the invariant's name as HISTORY.md spells it.
const NameAllocationMonotonicity = "allocation_monotonicity"

// checkAllocationMonotonicity: allocations on one chat never return the same
// value, and one that completed before another began returned the smaller
// value (ADR-004 Appendix C, with HISTORY.md's intervals for "time").
func checkAllocationMonotonicity(x *index) Result {
	v := newVerdict(NameAllocationMonotonicity)
	if x.allocs.Len() == 0 {
		v.notApplicable("no allocate traces in the history")
		return v.result()
	}
	buf := make([]interval, 0, maxSpan(x.allocSpan))
	for c := range x.chatNames {
		lo, hi := span(x.allocSpan, int32(c))
		if hi > lo && x.initialCounter > 0 && x.allocSeq(x.allocBySeq[lo]) <= x.initialCounter {
			// The counter only grows from where it stood before the run.
			a := x.allocBySeq[lo]
			v.fail([]int{int(x.allocs.At(a).line)}, "chat %q: an allocation returned %d (line %d), not above initial_counter %d, where the counter stood before the run",
				x.chatNames[c], x.allocSeq(a), x.allocs.At(a).line, x.initialCounter)
		}
		buf = buf[:0]
		for _, a := range x.allocBySeq[lo:hi] {
			buf = append(buf, interval{start: x.allocs.At(a).start, end: x.allocEnd(a), value: x.allocSeq(a), ref: a})
		}
		n, first := findOrderViolations(buf, equalAlwaysViolates)
		if n == 0 {
			continue
		}
		h, l := first.hi, first.lo
		// The earlier allocation's end and the later one's start are the
		// evidence; for a repeated value, the two trace lines alone.
		hl, ll := int(x.allocs.At(h.ref).line), int(x.allocs.At(l.ref).line)
		if h.value == l.value {
			v.fail([]int{hl, ll}, "chat %q: %d allocations returned one value more than once, e.g. %d at lines %d and %d",
				x.chatNames[c], n, h.value, int(x.allocs.At(h.ref).line), int(x.allocs.At(l.ref).line))
		} else {
			v.fail(append([]int{hl}, x.allocStartLines(l.ref)...), "chat %q: %d allocations returned a value below one already returned, e.g. %d (line %d) returned at time %d, before the allocation of %d (line %d) began at %s",
				x.chatNames[c], n, h.value, int(x.allocs.At(h.ref).line), h.end, l.value, int(x.allocs.At(l.ref).line), startText(l.start))
		}
	}
	v.pass("%s on %s: each chat's strictly increase in real time", plural(x.allocs.Len(), "allocation"), plural(len(x.chatNames), "chat"))
	return v.result()
}

func startText(t int64) string {
	if t == timeMin {
		return "an unknown time"
	}
	return fmt.Sprintf("time %d", t)
}
