package checker

import (
	"github.com/chatseq/chatseq/checker/internal/store"
	"github.com/chatseq/chatseq/history"
)

// NameEventCompleteness is the invariant's name as HISTORY.md spells it.
const NameEventCompleteness = "event_completeness"

// checkEventCompleteness (events contract at-least-once): every
// acknowledged (chat, seq, message_id) was published at least once, and
// every event names a message of the final table (no phantom events).
// Duplicates, per-partition order and unacknowledged messages without an
// event are reported, not failed. It returns the duplicate count.
func checkEventCompleteness(x *index) (Result, int) {
	v := newVerdict(NameEventCompleteness)
	if !x.HasEvents {
		v.notApplicable("the contract says events are at-least-once but the history has no final events lines")
		return v.result(), 0
	}
	published := x.EventCursor()
	for _, o := range x.Acks {
		c := x.Ops.At(o).Chat
		if !published.Has(c, x.AckSeq(o), x.AckID(o)) {
			v.fail([]int{x.DoneLine(o)}, "chat %q seq %d %q was acknowledged (line %d) but never published", x.ChatNames[c], x.AckSeq(o), x.MidName(x.AckID(o)), x.DoneLine(o))
		}
	}
	dups, againstAcks := 0, 0
	persisted := x.MsgCursor()
	for c := int32(0); c < int32(len(x.ChatNames)); c++ {
		lo, hi := store.Span(x.EventSpan, c)
		alo, ahi := store.Span(x.AckSpan, c)
		unheld, firstUnheld, lastUnheld := 0, 0, uint64(0)
		for i := lo; i < hi; i++ {
			e := x.Fin.At(x.Events[i])
			if i > lo {
				if p := x.Fin.At(x.Events[i-1]); p.Seq == e.Seq && p.MessageID == e.MessageID {
					dups++
					continue
				}
			}
			if x.HasMessages {
				if !persisted.Has(c, e.Seq, e.MessageID) {
					v.fail([]int{int(e.Line)}, "event at line %d names chat %q seq %d %q, which is not in the final messages table", e.Line, x.ChatNames[e.Chat], e.Seq, x.MidName(e.MessageID))
				}
				continue
			}
			// Without the table, the acks say which message a sequence
			// holds: an event naming another there is no message of the
			// chat (it passed, phantom events "not judged": a red-team's).
			for alo < ahi && x.AckSeq(x.Acks[alo]) < e.Seq {
				alo++
			}
			if alo < ahi && x.AckSeq(x.Acks[alo]) == e.Seq {
				againstAcks++
				if o, named := ackNaming(x, x.Acks[alo:ahi], e.Seq, e.MessageID); !named {
					v.fail([]int{int(e.Line), x.DoneLine(o)}, "event at line %d names chat %q seq %d %q, but seq %d was acknowledged as %q (line %d): a sequence holds one message",
						e.Line, x.ChatNames[e.Chat], e.Seq, x.MidName(e.MessageID), e.Seq, x.MidName(x.AckID(o)), x.DoneLine(o))
				}
			} else if e.Seq > x.InitialCounter && (unheld == 0 || e.Seq != lastUnheld) {
				// Events of a chat come by sequence: a new one here.
				if unheld == 0 || int(e.Line) < firstUnheld {
					firstUnheld = int(e.Line)
				}
				unheld, lastUnheld = unheld+1, e.Seq
			}
		}
		if why := beyondUnknownWriters(x, c, unheld, "events name"); why != "" {
			v.fail([]int{firstUnheld}, "chat %q: %s (the first: the events line %d)", x.ChatNames[c], why, firstUnheld)
		}
	}
	if !x.HasMessages {
		v.pass("%s published (no final messages lines: %s at an acknowledged sequence compared with its ack, the others not judged)", plural(len(x.Acks), "ack"), plural(againstAcks, "event"))
	} else {
		v.pass("%s published, %s: each names a persisted message", plural(len(x.Acks), "ack"), plural(len(x.Events), "event"))
		silent := 0
		acked, published := x.AckCursor(), x.EventCursor()
		for _, m := range x.Msgs {
			f := x.Fin.At(m)
			c := f.Chat
			if !acked.Has(c, f.Seq, f.MessageID) && !published.Has(c, f.Seq, f.MessageID) {
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
	if _, inv, split := x.eventOrder(); inv > 0 || split > 0 {
		v.note("out of sequence order: %s after a higher sequence of their chat in their partition, %s over several partitions", plural(inv, "event"), plural(split, "chat"))
		x.Warn("events out of sequence order: %s after a higher sequence of their chat in their partition and %s over several partitions, so consumers see them out of order (concurrent persists reach the topic in commit order, not sequence order; event_order judges it when the contract promises per-chat order)", plural(inv, "event"), plural(split, "chat"))
	}
	return v.result(), dups
}

// eventCompletenessPromise: events: at-least-once promises every
// acknowledged message an event.
func eventCompletenessPromise(j *judging) promise {
	switch j.con.Events {
	case history.EventsAtLeastOnce:
		return promise{}
	case history.EventsNone:
		if j.stated {
			return notPromised("contract events: none")
		}
		return notPromised("no final events lines and the contract does not state events")
	}
	return undefinedValue(history.FieldEvents, j.con.Events)
}

func judgeEventCompleteness(j *judging) Result {
	res, dups := checkEventCompleteness(j.x)
	j.stats.dups = dups
	return res
}

// ackNaming looks among acks (ascending by sequence, the first at seq)
// for one of seq naming id; without one it returns the first at seq.
func ackNaming(x *index, acks []int32, seq uint64, id uint32) (int32, bool) {
	for _, o := range acks {
		if x.AckSeq(o) != seq {
			break
		}
		if x.AckID(o) == id {
			return o, true
		}
	}
	return acks[0], false
}
