package checker

import (
	"fmt"
	"math"

	"github.com/chatseq/chatseq/checker/internal/store"
)

// offsetCollision is two events lines of chat at one partition and
// offset (a and b, indexes into Fin, in the file's order).
type offsetCollision struct{ chat, a, b int32 }

// topicOrder is the final events lines in the topic's order, chat by
// chat (then partition, offset, and the line breaking ties), and the
// chats two of whose events lines are at one partition and offset.
//
// A partition holds one record at an offset, so two such lines cannot
// both be what was read: the topic was not read as it is, and which of
// the two came first is not known. Judged in the file's order, one such
// history passed and the same lines the other way round failed. An
// invariant that reads a chat's topic order (event_order,
// stream_continuity) leaves such a chat unjudged: this is the one place
// that finds them.
type topicOrder struct {
	order []int32 // indexes into Fin
	// collisions is each such chat's first pair in order, by chat;
	// unread says which chats they are.
	collisions []offsetCollision
	unread     map[int32]bool
}

// topicOrder is worked out once for the index.
func (x *index) topicOrder() *topicOrder {
	x.topicOrderOnce.Do(func() { x.topicOrderRes = newTopicOrder(x) })
	return &x.topicOrderRes
}

func newTopicOrder(x *index) topicOrder {
	// The events lines in the file's order, which is the topic's
	// (partition, offset) as readers write it, so that the sort reads its
	// keys in order rather than at random from x.Events' (chat, seq)
	// order. The order sorted to is total (the line's index breaks ties):
	// where it starts changes nothing.
	order := make([]int32, 0, len(x.Events))
	for i := range x.Fin.Count() {
		if x.Fin.At(i).Table == store.TableEvents {
			order = append(order, i)
		}
	}
	store.SortByKey(order, func(i int32) store.SortKey {
		f := x.Fin.At(i)
		return store.SortKey{Chat: f.Chat, A: uint64(int64(x.EvPos.At(f.EventPos).Partition) - math.MinInt32), B: x.EvPos.At(f.EventPos).Offset}
	})
	t := topicOrder{order: order, unread: map[int32]bool{}}
	for k := 1; k < len(order); k++ {
		a, b := x.Fin.At(order[k-1]), x.Fin.At(order[k])
		pa, pb := x.EvPos.At(a.EventPos), x.EvPos.At(b.EventPos)
		if a.Chat == b.Chat && pa.Partition == pb.Partition && pa.Offset == pb.Offset && !t.unread[a.Chat] {
			t.collisions = append(t.collisions, offsetCollision{a.Chat, order[k-1], order[k]})
			t.unread[a.Chat] = true
		}
	}
	return t
}

// describe says which two events lines of which chat are at one offset.
func (c offsetCollision) describe(x *index) string {
	a, b := x.Fin.At(c.a), x.Fin.At(c.b)
	p := x.EvPos.At(a.EventPos)
	return fmt.Sprintf("the events lines %d (seq %d) and %d (seq %d) of chat %q are both at offset %d of partition %d: a partition holds one record at an offset, so the topic was not read as it is",
		int(a.Line), a.Seq, int(b.Line), b.Seq, x.ChatNames[c.chat], p.Offset, p.Partition)
}
