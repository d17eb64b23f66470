package columns

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkRadixSort sorts what a check after a 10 s run sorts most: the
// key hashes (canonical, bits 31 to 64 of about 14M entries) and a view
// by chat and sequence (5.5M entries, 64 chats).
func BenchmarkRadixSort(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	hashes := make([]uint64, 14_000_000)
	for i := range hashes {
		hashes[i] = rng.Uint64()&^lowHalf | uint64(i)
	}
	const idxBits, aBits = 23, 17
	views := make([]uint64, 5_500_000)
	for i := range views {
		chat, seq := rng.Uint64N(64), uint64(i/64)+rng.Uint64N(8)
		views[i] = (chat<<aBits|seq)<<idxBits | uint64(i)
	}
	for _, c := range []struct {
		name   string
		a      []uint64
		lo, hi int
	}{{"hashes", hashes, 31, 64}, {"views", views, idxBits, idxBits + aBits + 6}} {
		b.Run(c.name, func(b *testing.B) {
			a := make([]uint64, len(c.a))
			for b.Loop() {
				copy(a, c.a)
				RadixSortRange(a, c.lo, c.hi)
			}
		})
	}
}

// lowHalf is a uint64's low 32 bits.
const lowHalf = 1<<32 - 1
