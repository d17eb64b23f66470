package online

import (
	"hash/maphash"
	"math/bits"
	"sort"

	"github.com/chatseq/chatseq/checker/internal/columns"
	"github.com/chatseq/chatseq/checker/internal/store"
	"github.com/chatseq/chatseq/internal/mix"
)

// A key (sender and key of a persist) is kept as two hashes of the pair
// under independent seeds, 128 bits in all: keyHash and keyHash2. Two
// keys are taken as one when both agree (checker/INVARIANTS.md, "The
// online check", says what that risks).
var keySeed = maphash.MakeSeed()

// senderHash is a sender's share of its keys' two hashes: its string
// under each seed, hashed once for all its keys (Checker.senderOf).
type senderHash struct{ h1, h2 uint64 }

func hashSender(sender string) senderHash {
	return senderHash{store.StringHash(sender), maphash.String(keySeed, sender)}
}

// keyHash is a (sender, key) pair's hash, never 0 (0 marks an empty
// slot), from the key's store.StringHash (hashed once for this and what
// the persist carried).
func (s senderHash) keyHash(keyHash uint64) uint64 {
	return max(s.h1*0x9E3779B97F4A7C15^keyHash, 1)
}

// keyHash2 is a second hash of the pair, independent of keyHash (its own
// seed throughout; sender and key are hashed apart, so the pair is
// unambiguous).
func (s senderHash) keyHash2(key string) uint64 {
	return s.h2*0xC2B2AE3D27D4EB4F ^ maphash.String(keySeed, key)
}

// keyTable is a chat's keys: per key its first ok answer's sequence. The
// answer's message id and line are the chat's first ack at that sequence
// (onlineAcked), unless that was another ack's: then the slot is marked
// and Checker.keyFirst holds them. An open-addressing table of 24-byte
// slots (no map, no pointer for the collector to scan).
//
// The table is ordered (Amble and Knuth's ordered hash table, linear
// probing): a key's home slot is its keyHash's top bits, and the slots,
// read in order, hold the keys in keyHash order, clusters never wrapping
// (a tail of slots follows the last home, longer when need be). A look-up
// stops at the first greater key, and the table's keys come out sorted
// for a run: sorting them was a sixth of the key tables' cost in a run.
//
// A slot never changes once its key's first answer is noted (and marked
// or not), so with a spill file the table is a small log-structured
// merge: once it has keyTableMax homes and is three quarters full, its
// keys go to the file as a run sorted by keyHash and it starts empty; two
// runs of one size are merged into one of the next, in memory as the
// table is written out (a chat holds O(log keys) runs). Each
// run keeps in memory a Bloom filter of its keys (16 bits a key) and the
// first keyHash of each page of keyRunPage slots, so a new key (most
// persists) reads nothing from the file, and a key seen before reads a
// page or two of the run that holds it.
type keyTable struct {
	slots []keySlot // homes, then the tail
	homes int
	shift uint // a key's home is k1 >> shift
	n     int
	runs  []keyRun // oldest first
	found keySlot  // a key found in a run (find's answer)
	// page is where a run's page is read, made with the first run: on
	// the stack, it went to the heap, 3 KB a read.
	page *[keyRunPage]keySlot
	// merging, unless nil, is the space a flush merges runs in, shared
	// by a checker's tables (a flush runs on the checker's goroutine).
	merging *keyMerging
}

// keyMerging is where a flush reads a run back and merges it: made anew
// for each merge, they were a tenth of a run's allocations.
type keyMerging struct {
	old    []keySlot
	merged [2][]keySlot
}

// keyMergingKept bounds the slots keyMerging keeps for the next merge:
// a larger merge (a chat with millions of keys) allocates its own.
const keyMergingKept = 1 << 20

// slotsFor is *kept with room for n slots, kept if not too large.
func slotsFor(kept *[]keySlot, n int) []keySlot {
	if cap(*kept) >= n {
		return (*kept)[:n]
	}
	s := make([]keySlot, n)
	if n <= keyMergingKept {
		*kept = s
	}
	return s
}

type keySlot struct {
	k1  uint64 // keyHash; 0: empty
	k2  uint64 // keyHash2 with its lowest bit replaced by the mark
	seq uint64
}

const keyMarked = 1

const (
	// keyTableMax is how many homes a chat's table reaches before its
	// keys go to a run, when spilling.
	keyTableMax = 1 << 12
	// keyTableTail is the slots past the last home, where the last
	// homes' clusters end, and what the tail grows by.
	keyTableTail = 32
	// keyRunPage is how many slots of a run one fence names.
	keyRunPage = 128
	// keyBloomBits is the filter's bits a key; keyBloomProbes its probes
	// (about 0.1% false positives: at 10 bits, 1%, a run's page read
	// back for one new key in a hundred a run, was a tenth of the online
	// check's CPU in a run).
	keyBloomBits   = 16
	keyBloomProbes = 7
)

// keyRun is a run of slots on file, sorted by k1.
type keyRun struct {
	ref   columns.SpillRef
	level int
	fence []uint64 // k1 of each page's first slot
	bloom []uint64
}

// find returns the slot of key (k1, k2), inserting it with seq if it was
// not there (found false). A slot found in a run is a copy: the slots
// found are only read, and the one returned only until the next find.
func (t *keyTable) find(k1, k2, seq uint64, spill *columns.SpillFile) (s *keySlot, found bool) {
	if s, ok := t.get(k1, k2, spill); ok {
		return s, true
	}
	if 4*(t.n+1) > 3*t.homes {
		t.makeRoom(spill)
	}
	return t.insert(keySlot{k1: k1, k2: k2 &^ keyMarked, seq: seq}), false
}

// get is the slot of key (k1, k2), in the table or a run (a copy, as
// find's), if it was noted.
func (t *keyTable) get(k1, k2 uint64, spill *columns.SpillFile) (*keySlot, bool) {
	if s, ok := t.lookup(k1, k2); ok {
		return s, true
	}
	for i := len(t.runs) - 1; i >= 0; i-- {
		if t.runs[i].find(k1, k2, spill, t.page, &t.found) {
			return &t.found, true
		}
	}
	return nil, false
}

// lookup is the table's slot of (k1, k2), if it holds one.
func (t *keyTable) lookup(k1, k2 uint64) (*keySlot, bool) {
	if len(t.slots) == 0 {
		return nil, false
	}
	for i := k1 >> t.shift; i < uint64(len(t.slots)); i++ {
		s := &t.slots[i]
		if s.k1 == 0 || s.k1 > k1 {
			return nil, false
		}
		if s.k1 == k1 && s.k2|keyMarked == k2|keyMarked {
			return s, true
		}
	}
	return nil, false
}

// insert puts s in its place in k1 order, from its home on, moving the
// rest of its cluster one slot on (the tail grows when the cluster ends
// the table).
func (t *keyTable) insert(s keySlot) *keySlot {
	i := s.k1 >> t.shift
	for i < uint64(len(t.slots)) && t.slots[i].k1 != 0 && t.slots[i].k1 <= s.k1 {
		i++
	}
	end := i
	for end < uint64(len(t.slots)) && t.slots[end].k1 != 0 {
		end++
	}
	if end == uint64(len(t.slots)) {
		t.growTail()
	}
	copy(t.slots[i+1:end+1], t.slots[i:end])
	t.slots[i] = s
	t.n++
	return &t.slots[i]
}

// growTail adds keyTableTail empty slots past the last, for a cluster
// that reached the end (clusters never wrap).
func (t *keyTable) growTail() { t.slots = append(t.slots, make([]keySlot, keyTableTail)...) }

// makeRoom flushes a full-sized table to a run when spilling, else
// doubles it (also when the flush fails).
func (t *keyTable) makeRoom(spill *columns.SpillFile) {
	if t.homes >= keyTableMax && spill.Usable() && t.flush(spill) {
		return
	}
	t.grow()
}

// grow doubles the homes (at least 8), keeping the keys in order: each
// goes to its home or just past the key before it.
func (t *keyTable) grow() {
	old := t.slots
	t.homes = max(8, 2*t.homes)
	t.shift = uint(64 - bits.TrailingZeros(uint(t.homes)))
	t.slots = make([]keySlot, t.homes+keyTableTail)
	next := uint64(0)
	for _, s := range old {
		if s.k1 == 0 {
			continue
		}
		i := max(s.k1>>t.shift, next)
		if i >= uint64(len(t.slots)) {
			t.growTail()
		}
		t.slots[i] = s
		next = i + 1
	}
}

// flush moves the table's keys (in k1 order already) to a run and
// empties it, merging them first with the newest runs while the newest
// is of the level being written: in memory, so each key is written once
// a flush. It reports false, with no run changed and the keys gathered
// at the front of the slots (makeRoom grows the table from them), when
// the file takes no more.
func (t *keyTable) flush(spill *columns.SpillFile) bool {
	// The keys, moved to the front of the slots in their order: the table
	// is emptied after, or grown from them (grow takes them in order).
	keys := t.slots[:0]
	for _, s := range t.slots {
		if s.k1 != 0 {
			keys = append(keys, s)
		}
	}
	clear(t.slots[len(keys):])
	m := t.merging
	if m == nil {
		m = &keyMerging{}
	}
	level, merged := 0, len(t.runs)
	for merged > 0 && t.runs[merged-1].level == level {
		merged--
		old := slotsFor(&m.old, t.runs[merged].ref.Len())
		columns.SpillReadRange(spill, t.runs[merged].ref, 0, old)
		// Into the buffer keys is not in: the table's slots at first,
		// then the two merge buffers in turn.
		into := &m.merged[level%2]
		keys = mergeKeySlots(slotsFor(into, len(old)+len(keys))[:0], old, keys)
		level++
	}
	r, ok := newKeyRun(keys, level, spill)
	if !ok {
		return false
	}
	t.slots = t.slots[:t.homes+keyTableTail]
	clear(t.slots)
	t.n = 0
	t.runs = append(t.runs[:merged], r)
	if t.page == nil {
		t.page = new([keyRunPage]keySlot)
	}
	return true
}

// mergeKeySlots is a and b, each sorted by k1, as one sorted slice,
// appended to out (which holds neither).
func mergeKeySlots(out, a, b []keySlot) []keySlot {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i].k1 <= b[j].k1 {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// newKeyRun writes keys (sorted by k1) to the file as a run of level.
func newKeyRun(keys []keySlot, level int, spill *columns.SpillFile) (keyRun, bool) {
	ref, ok := columns.SpillWrite(spill, keys)
	if !ok {
		return keyRun{}, false
	}
	r := keyRun{ref: ref, level: level, bloom: make([]uint64, bloomWords(len(keys)))}
	for i, s := range keys {
		if i%keyRunPage == 0 {
			r.fence = append(r.fence, s.k1)
		}
		r.add(s.k1, s.k2)
	}
	return r, true
}

// A run's filter is blocked: a key's probes all fall in one block of
// bloomBlockWords words (a cache line), picked by the key. With each
// probe anywhere in the filter, a new key cost a cache miss and a
// division a probe in every run of its chat: a quarter of the online
// check's CPU in a run. At 16 bits a key and 7 probes, a 512-bit block
// holds false positives at 0.1% (each costs a page read;
// TestKeyRunFilterHoldsItsKeysAndFewOthers).
const bloomBlockWords = 8

// bloomBlock is the first word of a key's block, of blocks, and the hash
// its probes come from. The block is k1's place among the blocks, so keys
// looked up in k1 order (keybatch.go) read a filter front to back; the
// probes mix in k2, a hash independent of k1.
func bloomBlock(k1, k2 uint64, blocks int) (word int, h uint64) {
	h = k2&^keyMarked ^ k1*0x9E3779B97F4A7C15
	hi, _ := bits.Mul64(k1, uint64(blocks))
	return int(hi) * bloomBlockWords, h
}

// bloomWords is a filter's length for n keys: whole blocks.
func bloomWords(n int) int {
	blocks := max((n*keyBloomBits+64*bloomBlockWords-1)/(64*bloomBlockWords), 1)
	return blocks * bloomBlockWords
}

// probes is a key's block of the filter and its probes in it, 9 bits
// each from the lowest of a mix of the key's hash.
func (r *keyRun) probes(k1, k2 uint64) (block []uint64, bits uint64) {
	w, h := bloomBlock(k1, k2, len(r.bloom)/bloomBlockWords)
	return r.bloom[w : w+bloomBlockWords], mix.Mix64(h)
}

func (r *keyRun) add(k1, k2 uint64) {
	block, g := r.probes(k1, k2)
	for range keyBloomProbes {
		b := g & 511
		block[b/64] |= 1 << (b % 64)
		g >>= 9
	}
}

func (r *keyRun) mayHold(k1, k2 uint64) bool {
	block, g := r.probes(k1, k2)
	for range keyBloomProbes {
		if b := g & 511; block[b/64]&(1<<(b%64)) == 0 {
			return false
		}
		g >>= 9
	}
	return true
}

// find looks (k1, k2) up in the run, into *out, reading its pages into
// page.
func (r *keyRun) find(k1, k2 uint64, spill *columns.SpillFile, page *[keyRunPage]keySlot, out *keySlot) bool {
	if len(r.fence) == 0 || !r.mayHold(k1, k2) {
		return false
	}
	// The first page whose first key is k1 or above may begin past
	// slots of k1 ending the page before it.
	p := max(sort.Search(len(r.fence), func(i int) bool { return r.fence[i] >= k1 })-1, 0)
	for ; p < len(r.fence) && r.fence[p] <= k1; p++ {
		from := p * keyRunPage
		got := page[:min(keyRunPage, r.ref.Len()-from)]
		columns.SpillReadRange(spill, r.ref, from, got)
		for _, s := range got {
			if s.k1 == k1 && s.k2|keyMarked == k2|keyMarked {
				*out = s
				return true
			}
			if s.k1 > k1 {
				return false
			}
		}
	}
	return false
}

// keyFP names a key whose first answer Checker.keyFirst holds.
type keyFP struct {
	chat   int32
	k1, k2 uint64
}
