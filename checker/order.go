package checker

import "fmt"

// checkAllocationMonotonicity: allocations on one chat never return the same
// value, and one that completed before another began returned the smaller
// value (ADR-004 Appendix C, with HISTORY.md's intervals for "time").
func checkAllocationMonotonicity(x *index) Result {
	v := newVerdict(NameAllocationMonotonicity)
	if x.allocs.len() == 0 {
		v.notApplicable("no allocate traces in the history")
		return v.result()
	}
	buf := make([]interval, 0, maxSpan(x.allocSpan))
	for c := range x.chatNames {
		lo, hi := span(x.allocSpan, int32(c))
		if hi > lo && x.initialCounter > 0 && x.allocSeq(x.allocBySeq[lo]) <= x.initialCounter {
			// The counter only grows from where it stood before the run.
			a := x.allocBySeq[lo]
			v.fail([]int{int(x.allocs.at(a).line)}, "chat %q: an allocation returned %d (line %d), not above initial_counter %d, where the counter stood before the run",
				x.chatNames[c], x.allocSeq(a), x.allocs.at(a).line, x.initialCounter)
		}
		buf = buf[:0]
		for _, a := range x.allocBySeq[lo:hi] {
			buf = append(buf, interval{start: x.allocs.at(a).start, end: x.allocEnd(a), value: x.allocSeq(a), ref: a})
		}
		n, first := findOrderViolations(buf, equalAlwaysViolates)
		if n == 0 {
			continue
		}
		h, l := first.hi, first.lo
		// The earlier allocation's end and the later one's start are the
		// evidence; for a repeated value, the two trace lines alone.
		hl, ll := int(x.allocs.at(h.ref).line), int(x.allocs.at(l.ref).line)
		if h.value == l.value {
			v.fail([]int{hl, ll}, "chat %q: %d allocations returned one value more than once, e.g. %d at lines %d and %d",
				x.chatNames[c], n, h.value, int(x.allocs.at(h.ref).line), int(x.allocs.at(l.ref).line))
		} else {
			v.fail(append([]int{hl}, x.allocStartLines(l.ref)...), "chat %q: %d allocations returned a value below one already returned, e.g. %d (line %d) returned at time %d, before the allocation of %d (line %d) began at %s",
				x.chatNames[c], n, h.value, int(x.allocs.at(h.ref).line), h.end, l.value, int(x.allocs.at(l.ref).line), startText(l.start))
		}
	}
	v.pass("%s on %s: each chat's strictly increase in real time", plural(x.allocs.len(), "allocation"), plural(len(x.chatNames), "chat"))
	return v.result()
}

// checkSequenceMonotonic: of two persists that each created their message
// (ok, dedup=false), the one acknowledged before the other was invoked has
// the smaller sequence (ADR-001 Appendix C in HISTORY.md's real-time form).
func checkSequenceMonotonic(x *index) Result {
	v := newVerdict(NameSequenceMonotonic)
	buf := make([]interval, 0, maxSpan(x.ackSpan))
	total := 0
	for c := range x.chatNames {
		lo, hi := span(x.ackSpan, int32(c))
		buf = buf[:0]
		for _, o := range x.acks[lo:hi] {
			if !x.isDedup(o) {
				buf = append(buf, interval{start: x.call(o), end: x.ret(o), value: x.ackSeq(o), ref: o})
			}
		}
		total += len(buf)
		// Acks are by sequence: the first new message is the lowest. A
		// replay may answer a message from before the run; a new one
		// is above where the counter stood.
		if len(buf) > 0 && buf[0].value <= x.initialCounter && x.initialCounter > 0 {
			o := buf[0].ref
			v.fail([]int{x.doneLine(o)}, "chat %q: a persist was acked seq %d as a new message (line %d), not above initial_counter %d, where the counter stood before the run",
				x.chatNames[c], x.ackSeq(o), x.doneLine(o), x.initialCounter)
		}
		n, first := findOrderViolations(buf, equalViolatesIfOrdered)
		if n == 0 {
			continue
		}
		h, l := first.hi, first.lo
		v.fail([]int{x.doneLine(h.ref), x.invLine(l.ref), x.doneLine(l.ref)},
			"chat %q: %d new messages were acked a sequence not above one acked before they were invoked, e.g. seq %d acked at line %d before the persist at line %d was invoked, which got seq %d",
			x.chatNames[c], n, h.value, x.doneLine(h.ref), x.invLine(l.ref), l.value)
	}
	if total == 0 {
		v.notApplicable("no persist was acknowledged as a new message (ok with dedup=false)")
	}
	v.pass("%s acked as new messages: their sequences increase in real time", plural(total, "persist"))
	return v.result()
}

func startText(t int64) string {
	if t == timeMin {
		return "an unknown time"
	}
	return fmt.Sprintf("time %d", t)
}
