package checker

import "github.com/chatseq/chatseq/checker/internal/store"

// NameSequenceMonotonic is the invariant's name as HISTORY.md spells it.
const NameSequenceMonotonic = "sequence_monotonic"

// checkSequenceMonotonic: of two persists that each created their message
// (ok, dedup=false), the one acknowledged before the other was invoked has
// the smaller sequence (ADR-001 Appendix C in HISTORY.md's real-time form).
func checkSequenceMonotonic(x *index) Result {
	v := newVerdict(NameSequenceMonotonic)
	buf := make([]store.Interval, 0, store.MaxSpan(x.AckSpan))
	total := 0
	for c := range x.ChatNames {
		lo, hi := store.Span(x.AckSpan, int32(c))
		buf = buf[:0]
		for _, o := range x.Acks[lo:hi] {
			if !x.IsDedup(o) {
				buf = append(buf, store.Interval{Start: x.Call(o), End: x.Ret(o), Value: x.AckSeq(o), Ref: o})
			}
		}
		total += len(buf)
		// Acks are by sequence: the first new message is the lowest. A
		// replay may answer a message from before the run; a new one
		// is above where the counter stood.
		if len(buf) > 0 && buf[0].Value <= x.InitialCounter && x.InitialCounter > 0 {
			o := buf[0].Ref
			v.fail([]int{x.DoneLine(o)}, "chat %q: a persist was acked seq %d as a new message (line %d), not above initial_counter %d, where the counter stood before the run",
				x.ChatNames[c], x.AckSeq(o), x.DoneLine(o), x.InitialCounter)
		}
		n, first := store.FindOrderViolations(buf, store.EqualViolatesIfOrdered)
		if n == 0 {
			continue
		}
		h, l := first.Hi, first.Lo
		v.fail([]int{x.DoneLine(h.Ref), x.InvLine(l.Ref), x.DoneLine(l.Ref)},
			"chat %q: %d new messages were acked a sequence not above one acked before they were invoked, e.g. seq %d acked at line %d before the persist at line %d was invoked, which got seq %d",
			x.ChatNames[c], n, h.Value, x.DoneLine(h.Ref), x.InvLine(l.Ref), l.Value)
	}
	if total == 0 {
		v.notApplicable("no persist was acknowledged as a new message (ok with dedup=false)")
	}
	v.pass("%s acked as new messages: their sequences increase in real time", plural(total, "persist"))
	return v.result()
}
