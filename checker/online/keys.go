package online

import (
	"cmp"
	"hash/maphash"
	"math/bits"
	"slices"
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

// keyHash is a (sender, key) pair's hash, never 0 (0 marks an empty slot).
func keyHash(sender, key string) uint64 {
	return max(store.StringHash(sender)*0x9E3779B97F4A7C15^store.StringHash(key), 1)
}

// keyHash2 is a second hash of the pair, independent of keyHash (its own
// seed, and the sender's length to keep the pair unambiguous).
func keyHash2(sender, key string) uint64 {
	var h maphash.Hash
	h.SetSeed(keySeed)
	var n [8]byte
	for i, l := 0, uint64(len(sender)); i < 8; i, l = i+1, l>>8 {
		n[i] = byte(l)
	}
	h.Write(n[:])
	h.WriteString(sender)
	h.WriteString(key)
	return h.Sum64()
}

// keyTable is a chat's keys: per key its first ok answer's sequence. The
// answer's message id and line are the chat's first ack at that sequence
// (onlineAcked), unless that was another ack's: then the slot is marked
// and Checker.keyFirst holds them. An open-addressing table of 24-byte
// slots (no map, no pointer for the collector to scan).
//
// A slot never changes once its key's first answer is noted (and marked
// or not), so with a spill file the table is a small log-structured
// merge: once it holds keyTableMax slots' worth, its keys go to the file
// as a run sorted by keyHash and it starts empty; two runs of one size
// are merged into one of the next (a chat holds O(log keys) runs). Each
// run keeps in memory a Bloom filter of its keys (10 bits a key) and the
// first keyHash of each page of keyRunPage slots, so a new key (most
// persists) reads nothing from the file, and a key seen before reads a
// page or two of the run that holds it.
type keyTable struct {
	slots []keySlot
	n     int
	runs  []keyRun // oldest first
	found keySlot  // a key found in a run (find's answer)
}

type keySlot struct {
	k1  uint64 // keyHash; 0: empty
	k2  uint64 // keyHash2 with its lowest bit replaced by the mark
	seq uint64
}

const keyMarked = 1

const (
	// keyTableMax is how many slots a chat's table reaches before its
	// keys go to a run, when spilling.
	keyTableMax = 1 << 12
	// keyRunPage is how many slots of a run one fence names.
	keyRunPage = 128
	// keyBloomBits is the filter's bits a key; keyBloomProbes its probes
	// (about 1% false positives).
	keyBloomBits   = 10
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
// found are only read.
func (t *keyTable) find(k1, k2, seq uint64, spill *columns.SpillFile) (s *keySlot, found bool) {
	if s, ok := t.lookup(k1, k2); ok {
		return s, true
	}
	for i := len(t.runs) - 1; i >= 0; i-- {
		if t.runs[i].find(k1, k2, spill, &t.found) {
			return &t.found, true
		}
	}
	if 4*(t.n+1) > 3*len(t.slots) {
		if len(t.slots) >= keyTableMax && spill.Usable() {
			t.flush(spill)
		} else {
			t.grow()
		}
	}
	mask := uint64(len(t.slots) - 1)
	for i := k1 & mask; ; i = (i + 1) & mask {
		if s := &t.slots[i]; s.k1 == 0 {
			*s = keySlot{k1: k1, k2: k2 &^ keyMarked, seq: seq}
			t.n++
			return s, false
		}
	}
}

// lookup is the table's slot of (k1, k2), if it holds one.
func (t *keyTable) lookup(k1, k2 uint64) (*keySlot, bool) {
	if len(t.slots) == 0 {
		return nil, false
	}
	mask := uint64(len(t.slots) - 1)
	for i := k1 & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		switch {
		case s.k1 == 0:
			return nil, false
		case s.k1 == k1 && s.k2|keyMarked == k2|keyMarked:
			return s, true
		}
	}
}

func (t *keyTable) grow() {
	old := t.slots
	t.slots = make([]keySlot, max(8, 2*len(old)))
	mask := uint64(len(t.slots) - 1)
	for _, s := range old {
		if s.k1 == 0 {
			continue
		}
		i := s.k1 & mask
		for t.slots[i].k1 != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}

// flush moves the table's keys to a run and empties it, then merges the
// newest runs while two are of one level.
func (t *keyTable) flush(spill *columns.SpillFile) {
	keys := make([]keySlot, 0, t.n)
	for _, s := range t.slots {
		if s.k1 != 0 {
			keys = append(keys, s)
		}
	}
	slices.SortFunc(keys, func(a, b keySlot) int { return cmp.Compare(a.k1, b.k1) })
	r, ok := newKeyRun(keys, 0, spill)
	if !ok {
		t.grow() // the file takes no more: the table grows as without one
		return
	}
	clear(t.slots)
	t.n = 0
	t.runs = append(t.runs, r)
	for n := len(t.runs); n >= 2 && t.runs[n-1].level == t.runs[n-2].level; n = len(t.runs) {
		m, ok := mergeKeyRuns(&t.runs[n-2], &t.runs[n-1], spill)
		if !ok {
			return // both stay as they are
		}
		t.runs = append(t.runs[:n-2], m)
	}
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

// mergeKeyRuns writes a's and b's slots as one run of the next level.
func mergeKeyRuns(a, b *keyRun, spill *columns.SpillFile) (keyRun, bool) {
	as := make([]keySlot, a.ref.Len())
	bs := make([]keySlot, b.ref.Len())
	columns.SpillReadRange(spill, a.ref, 0, as)
	columns.SpillReadRange(spill, b.ref, 0, bs)
	merged := make([]keySlot, 0, len(as)+len(bs))
	i, j := 0, 0
	for i < len(as) || j < len(bs) {
		if j == len(bs) || i < len(as) && as[i].k1 <= bs[j].k1 {
			merged = append(merged, as[i])
			i++
		} else {
			merged = append(merged, bs[j])
			j++
		}
	}
	return newKeyRun(merged, max(a.level, b.level)+1, spill)
}

// A run's filter is blocked: a key's probes all fall in one block of
// bloomBlockWords words (a cache line), picked by the key. With each
// probe anywhere in the filter, a new key cost a cache miss and a
// division a probe in every run of its chat: a quarter of the online
// check's CPU in a run. At 10 bits a key and 7 probes, a 512-bit block
// holds false positives near the unblocked 1% (they only cost a page read).
const bloomBlockWords = 8

// bloomBlock is the first word of a key's block, of blocks.
func bloomBlock(k1, k2 uint64, blocks int) (word int, h uint64) {
	h = k2&^keyMarked ^ k1*0x9E3779B97F4A7C15
	hi, _ := bits.Mul64(h, uint64(blocks))
	return int(hi) * bloomBlockWords, h
}

// bloomWords is a filter's length for n keys: whole blocks.
func bloomWords(n int) int {
	blocks := max((n*keyBloomBits+64*bloomBlockWords-1)/(64*bloomBlockWords), 1)
	return blocks * bloomBlockWords
}

// probes is a key's block of the filter and its probes in it, 9 bits
// each from the lowest of a second mix of the key's hash (the block took
// the hash's high bits through the multiply).
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

// find looks (k1, k2) up in the run, into *out.
func (r *keyRun) find(k1, k2 uint64, spill *columns.SpillFile, out *keySlot) bool {
	if len(r.fence) == 0 || !r.mayHold(k1, k2) {
		return false
	}
	// The first page whose first key is k1 or above may begin past
	// slots of k1 ending the page before it.
	p := max(sort.Search(len(r.fence), func(i int) bool { return r.fence[i] >= k1 })-1, 0)
	var page [keyRunPage]keySlot
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
