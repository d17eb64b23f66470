package memstore

import (
	"sort"

	"github.com/chatseq/chatseq/store"
)

const pageBits = 9 // 512 messages a page

// messageTable holds one chat's messages by sequence in fixed-size pages:
// sequences are dense (1..counter) so a page lookup is an index, not a hash,
// and a counter restored far ahead only costs a new page.
type messageTable struct {
	pages    map[uint64]*messagePage
	pageKeys []uint64 // ascending
	count    int
}

type messagePage struct {
	present [1 << pageBits]bool
	msgs    [1 << pageBits]store.Message
}

func (t *messageTable) get(seq uint64) (store.Message, bool) {
	p := t.pages[seq>>pageBits]
	if p == nil || !p.present[seq&(1<<pageBits-1)] {
		return store.Message{}, false
	}
	return p.msgs[seq&(1<<pageBits-1)], true
}

func (t *messageTable) has(seq uint64) bool {
	p := t.pages[seq>>pageBits]
	return p != nil && p.present[seq&(1<<pageBits-1)]
}

// put stores m, overwriting any message at its sequence (a plain Put).
func (t *messageTable) put(m store.Message) {
	key := m.Seq >> pageBits
	p := t.pages[key]
	if p == nil {
		if t.pages == nil {
			t.pages = make(map[uint64]*messagePage)
		}
		p = &messagePage{}
		t.pages[key] = p
		i := sort.Search(len(t.pageKeys), func(i int) bool { return t.pageKeys[i] >= key })
		t.pageKeys = append(t.pageKeys, 0)
		copy(t.pageKeys[i+1:], t.pageKeys[i:])
		t.pageKeys[i] = key
	}
	slot := m.Seq & (1<<pageBits - 1)
	if !p.present[slot] {
		p.present[slot] = true
		t.count++
	}
	p.msgs[slot] = m
}

// ascending calls visit for messages with sequence > after in ascending
// order until visit returns false.
func (t *messageTable) ascending(after uint64, visit func(store.Message) bool) {
	first := sort.Search(len(t.pageKeys), func(i int) bool { return t.pageKeys[i] >= after>>pageBits })
	for _, key := range t.pageKeys[first:] {
		p := t.pages[key]
		for slot := range p.msgs {
			seq := key<<pageBits | uint64(slot)
			if seq > after && p.present[slot] && !visit(p.msgs[slot]) {
				return
			}
		}
	}
}

// descending calls visit for messages with sequence > after, highest first.
func (t *messageTable) descending(after uint64, visit func(store.Message) bool) {
	for i := len(t.pageKeys) - 1; i >= 0; i-- {
		key := t.pageKeys[i]
		p := t.pages[key]
		for slot := len(p.msgs) - 1; slot >= 0; slot-- {
			seq := key<<pageBits | uint64(slot)
			if seq <= after {
				return
			}
			if p.present[slot] && !visit(p.msgs[slot]) {
				return
			}
		}
	}
}
