package kafka

import (
	"cmp"
	"iter"
	"slices"
	"unsafe"
)

// eventStore keeps the events a Tail reads compactly until the run ends:
// chats interned, message ids in shared byte blocks, records in blocks that
// never move. As a slice of Event with a string each, a long run's events
// were about 120 bytes of heap apiece (and a slice regrown by quarters);
// here they are about 70, and nothing is copied as they come.
type eventStore struct {
	chats   []string
	chatIDs map[string]int32
	ids     []byte // the current block of message id bytes
	blocks  [][]storedEvent
	n       int
}

type storedEvent struct {
	seq       uint64
	offset    int64
	id        string // into a block of ids
	partition int32
	chat      int32
}

const (
	storeBlock   = 1 << 14
	idBlockBytes = 1 << 20
)

func (s *eventStore) add(e Event) {
	if s.chatIDs == nil {
		s.chatIDs = map[string]int32{}
	}
	c, ok := s.chatIDs[e.Chat]
	if !ok {
		c = int32(len(s.chats))
		s.chats = append(s.chats, e.Chat)
		s.chatIDs[e.Chat] = c
	}
	last := len(s.blocks) - 1
	if last < 0 || len(s.blocks[last]) == storeBlock {
		s.blocks = append(s.blocks, make([]storedEvent, 0, storeBlock))
		last++
	}
	s.blocks[last] = append(s.blocks[last], storedEvent{seq: e.Seq, offset: e.Offset, id: s.keep(e.MessageID), partition: e.Partition, chat: c})
	s.n++
}

// keep copies id into the current block of id bytes.
func (s *eventStore) keep(id string) string {
	if id == "" {
		return ""
	}
	if len(id) > idBlockBytes/16 {
		return string([]byte(id))
	}
	if len(id) > cap(s.ids)-len(s.ids) {
		s.ids = make([]byte, 0, idBlockBytes)
	}
	start := len(s.ids)
	s.ids = append(s.ids, id...)
	b := s.ids[start:]
	return unsafe.String(&b[0], len(id))
}

// Events are what a Tail read, in partition and offset order.
type Events struct {
	store *eventStore
	order []int32 // indexes into the store, sorted
}

// Len is the number of events.
func (es Events) Len() int { return len(es.order) }

// All yields every event in partition and offset order.
func (es Events) All() iter.Seq[Event] {
	return func(yield func(Event) bool) {
		for _, i := range es.order {
			r := es.store.at(i)
			if !yield(Event{Chat: es.store.chats[r.chat], Seq: r.seq, MessageID: r.id, Partition: r.partition, Offset: r.offset}) {
				return
			}
		}
	}
}

func (s *eventStore) at(i int32) *storedEvent {
	return &s.blocks[i/storeBlock][i%storeBlock]
}

// sorted returns the events whose offsets are below their partition's
// entry in until (a partition not named keeps none), by partition and
// offset.
func (s *eventStore) sorted(until map[int32]int64) Events {
	order := make([]int32, 0, s.n)
	for i := range int32(s.n) {
		if r := s.at(i); r.offset < until[r.partition] {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(a, b int32) int {
		ra, rb := s.at(a), s.at(b)
		return cmp.Or(cmp.Compare(ra.partition, rb.partition), cmp.Compare(ra.offset, rb.offset))
	})
	return Events{store: s, order: order}
}
