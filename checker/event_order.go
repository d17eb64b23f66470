package checker

import (
	"cmp"
	"slices"

	"github.com/chatseq/chatseq/history"
)

// NameEventOrder is the invariant's name as HISTORY.md spells it.
const NameEventOrder = "event_order"

// event_order (contract event_order: per-chat). A design that promises
// consumers per-chat order (the Message Service's "Strict Ordering per
// Conversation", §5, with the topic partitioned by conversation, §8) must
// put each chat's events on the topic in sequence order:
//
//   - all of a chat's events are in one partition (Kafka orders a topic
//     only within a partition);
//   - read in offset order, the first event of each (seq, message_id)
//     never comes after an event of a higher sequence of the same chat.
//
// A repeated event of a message already delivered is a duplicate, which
// at-least-once allows and an idempotent consumer drops, not an
// inversion. The smallest counterexample is two events: a higher sequence
// and, at a later offset, a lower one (or two partitions of one chat).

// seqID is one message as an event names it.
type seqID struct {
	seq uint64
	id  uint32 // interned message id
}

// checkEventOrder judges every chat's events; the history has events
// lines (eventOrderEvidence). It returns how many events came after a
// higher sequence of their chat, and how many chats span partitions.
func checkEventOrder(x *index) (res Result, inversions, split int) {
	v := newVerdict(NameEventOrder)
	// The events lines in the topic's order, chat by chat. Two events
	// lines of a chat at one partition and offset (topicOrder): which came
	// first is not known. That chat is not judged; the others are
	// (returning at the first such pair hid another chat's inversion
	// behind unknown: a red-team's history).
	t := x.topicOrder()
	order, unreadChats := t.order, t.unread
	if len(t.collisions) > 0 {
		v.unknown("%s, and the order of the two is not known", t.collisions[0].describe(x))
	}
	if len(t.collisions) > 1 {
		v.note("%s not judged: two events lines at one offset", plural(len(t.collisions), "chat"))
	}
	// A partition's events seen so far, to tell a repeat from a first
	// event: those that raised its highest sequence (chain, ascending) and
	// the others (rare: out of order, or a second id at the highest
	// sequence). An event above the highest is new without a look.
	var chain []seqID
	others := map[seqID]struct{}{}
	dups, chats := 0, 0
	for i := 0; i < len(order); {
		c := x.Fin.At(order[i]).Chat
		first := x.Fin.At(order[i])
		j := i
		for ; j < len(order) && x.Fin.At(order[j]).Chat == c; j++ {
		}
		if unreadChats[c] {
			i = j
			continue
		}
		chats++
		// Each partition of the chat in offset order.
		for p := i; p < j; {
			part := x.partition(order[p])
			if p > i && part != x.EvPos.At(first.EventPos).Partition && x.partition(order[p-1]) == x.EvPos.At(first.EventPos).Partition {
				// The chat's second partition: one failure per chat.
				split++
				e := x.Fin.At(order[p])
				v.fail([]int{int(first.Line), int(e.Line)}, "chat %q has events in partitions %d (seq %d at offset %d, line %d) and %d (seq %d at offset %d, line %d): Kafka orders a chat's events only within one partition",
					x.ChatNames[c], x.EvPos.At(first.EventPos).Partition, first.Seq, x.EvPos.At(first.EventPos).Offset, int(first.Line), x.EvPos.At(e.EventPos).Partition, e.Seq, x.EvPos.At(e.EventPos).Offset, int(e.Line))
			}
			chain = chain[:0]
			if len(others) > 0 {
				clear(others)
			}
			top := int32(-1) // the event with the highest sequence so far
			q := p
			for ; q < j; q++ {
				e := x.Fin.At(order[q])
				if x.EvPos.At(e.EventPos).Partition != part {
					break
				}
				k := seqID{seq: e.Seq, id: e.MessageID}
				if top >= 0 && e.Seq <= chain[len(chain)-1].seq {
					if seenIn(chain, k) {
						dups++
						continue
					}
					if _, dup := others[k]; dup {
						dups++
						continue
					}
					others[k] = struct{}{}
					if e.Seq < chain[len(chain)-1].seq {
						inversions++
						h := x.Fin.At(top)
						if lines := [2]int{int(h.Line), int(e.Line)}; !v.Keeps(lines[:]) {
							// Only counted: formatting each of hundreds of
							// thousands of inversions (a zipf history's)
							// was a third of event_order.
							v.CountFail()
							continue
						}
						v.fail([]int{int(h.Line), int(e.Line)}, "chat %q: seq %d (%q) is at offset %d of partition %d (line %d), after seq %d at offset %d (line %d): a consumer of the partition receives %d before %d",
							x.ChatNames[c], e.Seq, x.MidName(e.MessageID), x.EvPos.At(e.EventPos).Offset, x.EvPos.At(e.EventPos).Partition, int(e.Line), h.Seq, x.EvPos.At(h.EventPos).Offset, int(h.Line), h.Seq, e.Seq)
					}
					continue
				}
				chain = append(chain, k)
				top = order[q]
			}
			p = q
		}
		i = j
	}
	if inversions > 0 {
		v.note("%s come after a higher sequence of their chat in their partition", plural(inversions, "event"))
	}
	if split > 0 {
		v.note("%s span several partitions", plural(split, "chat"))
	}
	if dups > 0 {
		v.note("%s of a message already delivered not counted (at-least-once allows them)", plural(dups, "repeated event"))
	}
	v.pass("%s of %s reach the topic in sequence order, each chat in one partition", plural(len(order), "event"), plural(chats, "chat"))
	return v.result(), inversions, split
}

// seenIn reports whether k is in chain, ascending by sequence with one
// message a sequence.
func seenIn(chain []seqID, k seqID) bool {
	at, found := slices.BinarySearchFunc(chain, k.seq, func(s seqID, seq uint64) int { return cmp.Compare(s.seq, seq) })
	return found && chain[at].id == k.id
}

// partition is the topic partition of events line f.
func (x *index) partition(f int32) int32 { return x.EvPos.At(x.Fin.At(f).EventPos).Partition }

// eventOrderPromise: event_order: per-chat promises consumers each chat's
// events in sequence order; none does not.
func eventOrderPromise(j *judging) promise {
	switch j.con.EventOrder {
	case history.EventOrderPerChat:
		return promise{}
	case history.EventOrderNone:
		return notPromised("contract event_order: none (the design does not promise consumers per-chat order)")
	}
	return undefinedValueCutShort(history.FieldEventOrder, j.con.EventOrder)
}

// eventOrderEvidence says why the history holds no events to order.
func eventOrderEvidence(j *judging) string {
	if !j.x.HasEvents {
		return "no final events lines: the topic was not read back"
	}
	return ""
}

func judgeEventOrder(j *judging) Result {
	res, outOfOrder, _ := j.x.eventOrder()
	j.stats.outOfOrder = outOfOrder
	return res
}

// tallyEventOrder counts events_out_of_order unpromised: a fact of the
// topic.
func tallyEventOrder(j *judging) { judgeEventOrder(j) }

// eventOrder is checkEventOrder's result, judged once for the index.
// It counts the events that come after a higher sequence of their chat in
// their partition (a message's first event; a repeat is a duplicate), and
// the chats spread over partitions.
func (x *index) eventOrder() (res Result, inversions, split int) {
	x.eventOrderOnce.Do(func() {
		r := &x.eventOrderRes
		r.res, r.inversions, r.split = checkEventOrder(x)
	})
	r := x.eventOrderRes
	return r.res, r.inversions, r.split
}

type eventOrderResult struct {
	res               Result
	inversions, split int
}
