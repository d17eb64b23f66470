package memstore

import (
	"hash/maphash"

	"github.com/chatseq/chatseq/store"
)

// idempotencyChunk is how many records one storage chunk holds.
const idempotencyChunk = 1024

// idempotencyTable is one chat's idempotency keys: records in chunked
// storage (chunks never move a written record), found through an
// open-addressing index of 8-byte entries, each a key's 32-bit hash and its
// slot. A look-up usually reads one cache line of the index where a Go map
// reads two (its control word and the slot), and the look-up is most of
// what a persist costs the embedded store. Neither the index nor the
// records hold pointers (their strings are in strs), so the garbage
// collector never scans them. Keys that share a hash sit further along the
// same probe run, told apart by comparing the keys themselves.
type idempotencyTable struct {
	hash   func(string) uint64
	index  []uint64 // 0: empty; else hash32<<32 | slot+1
	chunks []*[idempotencyChunk]idempotencyItem
	count  uint32
	strs   arena
}

const (
	// idempotencyIndexFirst is the index size of a new chat.
	idempotencyIndexFirst = 64
	// The index doubles before it is half full, so probe runs stay short.
	idempotencyIndexMaxLoad = 2
)

func newIdempotencyTable(seed maphash.Seed) idempotencyTable {
	return idempotencyTable{hash: func(key string) uint64 { return maphash.String(seed, key) }}
}

func (t *idempotencyTable) slot(i uint32) *idempotencyItem {
	return &t.chunks[i/idempotencyChunk][i%idempotencyChunk]
}

// find returns the key's slot, or where in the index the key would go;
// and the key's hash as the index keeps it.
func (t *idempotencyTable) find(key string) (slot uint32, at int, h uint32, found bool) {
	h = uint32(t.hash(key))
	if len(t.index) == 0 {
		return 0, -1, h, false
	}
	mask := len(t.index) - 1
	for at = int(h) & mask; ; at = (at + 1) & mask {
		e := t.index[at]
		if e == 0 {
			return 0, at, h, false
		}
		if uint32(e>>32) == h {
			if s := uint32(e) - 1; t.strs.first(t.slot(s).blob) == key {
				return s, at, h, true
			}
		}
	}
}

// get reads the key's record as the chat's.
func (t *idempotencyTable) get(chatID, key string) (store.IdempotencyRecord, bool) {
	s, _, _, ok := t.find(key)
	if !ok {
		return store.IdempotencyRecord{}, false
	}
	return t.slot(s).record(chatID, &t.strs), true
}

func (t *idempotencyTable) has(key string) bool {
	_, _, _, ok := t.find(key)
	return ok
}

// put writes the record (its chat is the table's), overwriting the key's
// slot if it has one.
func (t *idempotencyTable) put(r store.IdempotencyRecord) {
	s, at, h, found := t.find(r.Key)
	if found {
		*t.slot(s) = idempotencyItemOf(r, &t.strs)
		return
	}
	if int(t.count+1)*idempotencyIndexMaxLoad > len(t.index) {
		t.grow()
		_, at, _, _ = t.find(r.Key)
	}
	s = t.count
	if s%idempotencyChunk == 0 {
		t.chunks = append(t.chunks, new([idempotencyChunk]idempotencyItem))
	}
	*t.slot(s) = idempotencyItemOf(r, &t.strs)
	t.count++
	t.index[at] = uint64(h)<<32 | uint64(s+1)
}

// grow doubles the index and places every entry again by its stored hash;
// the records themselves are not read.
func (t *idempotencyTable) grow() {
	old := t.index
	t.index = make([]uint64, max(2*len(old), idempotencyIndexFirst))
	mask := len(t.index) - 1
	for _, e := range old {
		if e == 0 {
			continue
		}
		at := int(uint32(e>>32)) & mask
		for t.index[at] != 0 {
			at = (at + 1) & mask
		}
		t.index[at] = e
	}
}

// each calls visit with every record as the chat's, in the order keys
// were first written.
func (t *idempotencyTable) each(chatID string, visit func(store.IdempotencyRecord)) {
	for i := uint32(0); i < t.count; i++ {
		visit(t.slot(i).record(chatID, &t.strs))
	}
}
