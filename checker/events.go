package checker

import (
	"cmp"
	"slices"
)

// eventAt reports whether chat c's final events hold (seq, id).
func (x *index) eventAt(c int32, seq uint64, id uint32) bool {
	lo, hi := span(x.eventSpan, c)
	es := x.events[lo:hi]
	i, _ := slices.BinarySearchFunc(es, seq, func(e int32, s uint64) int { return cmp.Compare(x.fin.at(e).Seq, s) })
	for ; i < len(es) && x.fin.at(es[i]).Seq == seq; i++ {
		if x.fin.at(es[i]).MessageID == id {
			return true
		}
	}
	return false
}

// acked reports whether chat c has an ack of (seq, id).
func (x *index) acked(c int32, seq uint64, id uint32) bool {
	lo, hi := span(x.ackSpan, c)
	as := x.acks[lo:hi]
	i, _ := slices.BinarySearchFunc(as, seq, func(o int32, s uint64) int { return cmp.Compare(x.ackSeq(o), s) })
	for ; i < len(as) && x.ackSeq(as[i]) == seq; i++ {
		if x.ackID(as[i]) == id {
			return true
		}
	}
	return false
}

// checkEventCompleteness (events contract at-least-once): every
// acknowledged (chat, seq, message_id) was published at least once, and
// every event names a message of the final table (no phantom events).
// Duplicates, per-partition order and unacknowledged messages without an
// event are reported, not failed. It returns the duplicate count.
func checkEventCompleteness(x *index) (Result, int) {
	v := newVerdict(NameEventCompleteness)
	if !x.hasEvents {
		v.notApplicable("the contract says events are at-least-once but the history has no final events lines")
		return v.result(), 0
	}
	for _, o := range x.acks {
		c := x.ops.at(o).chat
		if !x.eventAt(c, x.ackSeq(o), x.ackID(o)) {
			v.fail([]int{x.doneLine(o)}, "chat %q seq %d %q was acknowledged (line %d) but never published", x.chatNames[c], x.ackSeq(o), x.midName(x.ackID(o)), x.doneLine(o))
		}
	}
	dups := 0
	for c := int32(0); c < int32(len(x.chatNames)); c++ {
		lo, hi := span(x.eventSpan, c)
		for i := lo; i < hi; i++ {
			e := x.fin.at(x.events[i])
			if i > lo {
				if p := x.fin.at(x.events[i-1]); p.Seq == e.Seq && p.MessageID == e.MessageID {
					dups++
					continue
				}
			}
			if x.hasMessages {
				if found, _ := x.hasMsg(c, e.Seq, e.MessageID); !found {
					v.fail([]int{int(e.Line)}, "event at line %d names chat %q seq %d %q, which is not in the final messages table", e.Line, x.chatNames[e.chat], e.Seq, x.midName(e.MessageID))
				}
			}
		}
	}
	if !x.hasMessages {
		v.pass("%s published (no final messages lines: phantom events not judged)", plural(len(x.acks), "ack"))
	} else {
		v.pass("%s published, %s: each names a persisted message", plural(len(x.acks), "ack"), plural(len(x.events), "event"))
		silent := 0
		for _, m := range x.msgs {
			f := x.fin.at(m)
			c := f.chat
			if !x.acked(c, f.Seq, f.MessageID) && !x.eventAt(c, f.Seq, f.MessageID) {
				silent++
			}
		}
		if silent > 0 {
			v.note("%s persisted but never acknowledged and without an event (allowed: no persist of it succeeded)", plural(silent, "message"))
		}
	}
	if dups > 0 {
		v.note("%s (at-least-once allows them)", plural(dups, "duplicate event"))
	}
	if inv, split := x.eventOrder(); inv > 0 || split > 0 {
		v.note("out of sequence order: %s after a higher sequence of their chat in their partition, %s over several partitions", plural(inv, "event"), plural(split, "chat"))
		x.warn("events out of sequence order: %s after a higher sequence of their chat in their partition and %s over several partitions, so consumers see them out of order (concurrent persists reach the topic in commit order, not sequence order; event_order judges it when the contract promises per-chat order)", plural(inv, "event"), plural(split, "chat"))
	}
	return v.result(), dups
}

// eventOrder counts the events that come after a higher sequence of their
// chat in their partition (a message's first event; a repeat is a
// duplicate), and the chats spread over partitions, as event_order does.
func (x *index) eventOrder() (inversions, split int) {
	_, inversions, split = checkEventOrder(x)
	return inversions, split
}
