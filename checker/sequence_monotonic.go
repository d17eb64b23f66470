package checker

// NameSequenceMonotonic is the invariant's name as HISTORY.md spells it.
const NameSequenceMonotonic = "sequence_monotonic"

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
