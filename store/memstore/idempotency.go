package memstore

import "hash/maphash"

// idempotencyChunk is how many records one storage chunk holds.
const idempotencyChunk = 1024

// idempotencyTable is one chat's idempotency keys. The index maps a key's
// 64-bit hash to a slot in chunked storage: an index without pointers is
// cheap to grow and the garbage collector never scans it, and chunks never
// move a written record. Keys whose hash another key already holds (about
// never, but possible) go to collided.
type idempotencyTable struct {
	hash     func(string) uint64
	index    map[uint64]uint32
	collided map[string]uint32
	chunks   []*[idempotencyChunk]idempotencyItem
	count    uint32
}

func newIdempotencyTable(seed maphash.Seed) idempotencyTable {
	return idempotencyTable{
		hash:  func(key string) uint64 { return maphash.String(seed, key) },
		index: make(map[uint64]uint32),
	}
}

func (t *idempotencyTable) slot(i uint32) *idempotencyItem {
	return &t.chunks[i/idempotencyChunk][i%idempotencyChunk]
}

// find returns the key's slot.
func (t *idempotencyTable) find(key string) (uint32, bool) {
	i, ok := t.index[t.hash(key)]
	if !ok {
		return 0, false
	}
	if t.slot(i).key == key {
		return i, true
	}
	i, ok = t.collided[key]
	return i, ok
}

func (t *idempotencyTable) get(key string) (idempotencyItem, bool) {
	i, ok := t.find(key)
	if !ok {
		return idempotencyItem{}, false
	}
	return *t.slot(i), true
}

func (t *idempotencyTable) has(key string) bool {
	_, ok := t.find(key)
	return ok
}

// put writes the record (item.key set), overwriting the key's slot if it
// has one.
func (t *idempotencyTable) put(item idempotencyItem) {
	h := t.hash(item.key)
	first, taken := t.index[h]
	switch {
	case taken && t.slot(first).key == item.key:
		*t.slot(first) = item
		return
	case taken:
		if i, ok := t.collided[item.key]; ok {
			*t.slot(i) = item
			return
		}
	}
	i := t.count
	if i%idempotencyChunk == 0 {
		t.chunks = append(t.chunks, new([idempotencyChunk]idempotencyItem))
	}
	*t.slot(i) = item
	t.count++
	if !taken {
		t.index[h] = i
		return
	}
	if t.collided == nil {
		t.collided = make(map[string]uint32)
	}
	t.collided[item.key] = i
}

// each calls visit with every record, in the order keys were first
// written.
func (t *idempotencyTable) each(visit func(idempotencyItem)) {
	for i := uint32(0); i < t.count; i++ {
		visit(*t.slot(i))
	}
}
