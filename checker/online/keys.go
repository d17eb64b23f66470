package online

import (
	"hash/maphash"

	"github.com/chatseq/chatseq/checker/internal/store"
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
type keyTable struct {
	slots []keySlot
	n     int
}

type keySlot struct {
	k1  uint64 // keyHash; 0: empty
	k2  uint64 // keyHash2 with its lowest bit replaced by the mark
	seq uint64
}

const keyMarked = 1

// find returns the slot of key (k1, k2), inserting it with seq if it was
// not there (found false).
func (t *keyTable) find(k1, k2, seq uint64) (s *keySlot, found bool) {
	if 4*(t.n+1) > 3*len(t.slots) {
		t.grow()
	}
	mask := uint64(len(t.slots) - 1)
	for i := k1 & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		switch {
		case s.k1 == 0:
			*s = keySlot{k1: k1, k2: k2 &^ keyMarked, seq: seq}
			t.n++
			return s, false
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

// keyFP names a key whose first answer Checker.keyFirst holds.
type keyFP struct {
	chat   int32
	k1, k2 uint64
}
