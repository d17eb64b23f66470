package checker

import (
	"math"
	"slices"
)

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
// lines (see findingTasks). It returns how many events came after a
// higher sequence of their chat, and how many chats span partitions.
func checkEventOrder(x *index) (res Result, inversions, split int) {
	v := newVerdict(NameEventOrder)
	order := slices.Clone(x.events)
	sortByKey(order, func(i int32) sortKey {
		f := x.fin.at(i)
		return sortKey{chat: f.chat, a: uint64(int64(x.evPos.at(f.ev).Partition) - math.MinInt32), b: x.evPos.at(f.ev).Offset}
	})
	seen := map[seqID]struct{}{}
	dups, chats := 0, 0
	for i := 0; i < len(order); {
		c := x.fin.at(order[i]).chat
		chats++
		first := x.fin.at(order[i])
		j := i
		for ; j < len(order) && x.fin.at(order[j]).chat == c; j++ {
		}
		// Each partition of the chat in offset order.
		for p := i; p < j; {
			part := x.partition(order[p])
			if p > i && part != x.evPos.at(first.ev).Partition && x.partition(order[p-1]) == x.evPos.at(first.ev).Partition {
				// The chat's second partition: one failure per chat.
				split++
				e := x.fin.at(order[p])
				v.fail([]int{int(first.Line), int(e.Line)}, "chat %q has events in partitions %d (seq %d at offset %d, line %d) and %d (seq %d at offset %d, line %d): Kafka orders a chat's events only within one partition",
					x.chatNames[c], x.evPos.at(first.ev).Partition, first.Seq, x.evPos.at(first.ev).Offset, int(first.Line), x.evPos.at(e.ev).Partition, e.Seq, x.evPos.at(e.ev).Offset, int(e.Line))
			}
			clear(seen)
			top := int32(-1) // the event with the highest sequence so far
			q := p
			for ; q < j && x.partition(order[q]) == part; q++ {
				e := x.fin.at(order[q])
				k := seqID{seq: e.Seq, id: e.MessageID}
				if _, dup := seen[k]; dup {
					dups++
					continue
				}
				seen[k] = struct{}{}
				if top >= 0 && e.Seq < x.fin.at(top).Seq {
					inversions++
					h := x.fin.at(top)
					v.fail([]int{int(h.Line), int(e.Line)}, "chat %q: seq %d (%q) is at offset %d of partition %d (line %d), after seq %d at offset %d (line %d): a consumer of the partition receives %d before %d",
						x.chatNames[c], e.Seq, x.midName(e.MessageID), x.evPos.at(e.ev).Offset, x.evPos.at(e.ev).Partition, int(e.Line), h.Seq, x.evPos.at(h.ev).Offset, int(h.Line), h.Seq, e.Seq)
					continue
				}
				if top < 0 || e.Seq > x.fin.at(top).Seq {
					top = order[q]
				}
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

// partition is the topic partition of events line f.
func (x *index) partition(f int32) int32 { return x.evPos.at(x.fin.at(f).ev).Partition }
