package memstore

import (
	"math/bits"
	"sort"

	"github.com/chatseq/chatseq/store"
)

const (
	pageBits = 9 // 512 messages a page
	pageSize = 1 << pageBits
	slotMask = pageSize - 1
)

// messageTable holds one chat's messages by sequence in fixed-size pages:
// sequences are dense (1..counter) so a page lookup is an index, not a hash,
// and a counter restored far ahead only costs a new page.
type messageTable struct {
	pages    map[uint64]*messagePage
	pageKeys []uint64 // ascending
	last     *messagePage
	lastKey  uint64
	strs     arena
	n        int // messages held
}

type messagePage struct {
	present [pageSize / 64]uint64 // a bit per slot
	msgs    [pageSize]messageItem
}

func (p *messagePage) has(slot uint64) bool { return p.present[slot/64]&(1<<(slot%64)) != 0 }

// page returns the page holding key, nil if there is none. The page most
// recently written is looked at first: appends go to it.
func (t *messageTable) page(key uint64) *messagePage {
	if t.last != nil && t.lastKey == key {
		return t.last
	}
	return t.pages[key]
}

func (t *messageTable) has(seq uint64) bool {
	p := t.page(seq >> pageBits)
	return p != nil && p.has(seq&slotMask)
}

// put stores m, overwriting any message at its sequence (a plain Put).
func (t *messageTable) put(m store.Message) {
	key := m.Seq >> pageBits
	p := t.page(key)
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
	t.last, t.lastKey = p, key
	slot := m.Seq & slotMask
	if !p.has(slot) {
		t.n++
	}
	p.present[slot/64] |= 1 << (slot % 64)
	p.msgs[slot] = messageItemOf(m, &t.strs)
}

// ascending calls visit for messages with sequence > after in ascending
// order until visit returns false.
func (t *messageTable) ascending(chatID string, after uint64, visit func(store.Message) bool) {
	first := sort.Search(len(t.pageKeys), func(i int) bool { return t.pageKeys[i] >= after>>pageBits })
	for _, key := range t.pageKeys[first:] {
		p := t.pages[key]
		for word, set := range p.present {
			for set != 0 {
				slot := uint64(word*64 + bits.TrailingZeros64(set))
				set &= set - 1
				seq := key<<pageBits | slot
				if seq > after && !visit(p.msgs[slot].message(chatID, seq, &t.strs)) {
					return
				}
			}
		}
	}
}

// descending calls visit for messages with sequence > after, highest first.
func (t *messageTable) descending(chatID string, after uint64, visit func(store.Message) bool) {
	for i := len(t.pageKeys) - 1; i >= 0; i-- {
		key := t.pageKeys[i]
		p := t.pages[key]
		for word := len(p.present) - 1; word >= 0; word-- {
			for set := p.present[word]; set != 0; {
				top := 63 - bits.LeadingZeros64(set)
				set &^= 1 << top
				slot := uint64(word*64 + top)
				seq := key<<pageBits | slot
				if seq <= after {
					return
				}
				if !visit(p.msgs[slot].message(chatID, seq, &t.strs)) {
					return
				}
			}
		}
	}
}
