package columns

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// searchFrom answers as slices.BinarySearchFunc does, from any starting
// index, whether the target lies before it, at it, after it or past the
// end, with repeated values.
func TestSearchFromIsABinarySearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 2000 {
		s := make([]uint64, rng.IntN(200))
		for i := range s {
			s[i] = rng.Uint64N(300)
		}
		slices.Sort(s)
		for range 20 {
			target, from := rng.Uint64N(320), rng.IntN(len(s)+2)
			wi, wf := slices.BinarySearch(s, target)
			gi, gf := SearchFrom(s, from, target, func(e, t uint64) int { return cmp.Compare(e, t) })
			if gi != wi || gf != wf {
				t.Fatalf("searchFrom(%v, %d, %d) = %d, %v; want %d, %v", s, from, target, gi, gf, wi, wf)
			}
		}
	}
}
