package checker

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// sortByKey orders a view exactly as a comparison sort by (chat, a, b,
// index) does, on the radix path (small chats and sequences, or large
// sequences close together; repeated pairs, indexes in any order) and on
// the comparison path (pairs and indexes wider than 64 bits).
func TestSortByKeyIsACompareSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for round := range 400 {
		n := rng.IntN(300)
		if round%50 == 0 {
			n = 20000
		}
		keys := make([]sortKey, n)
		maxA := uint64(1) << rng.IntN(64)
		chats := int32(1 + rng.IntN(70))
		for i := range keys {
			keys[i] = sortKey{chat: rng.Int32N(chats), a: rng.Uint64N(maxA), b: rng.Int64N(5) - 2}
			if i > 0 && rng.IntN(3) == 0 {
				keys[i].a = keys[rng.IntN(i)].a // equal pairs, sorted by b
			}
			if round%7 == 0 {
				keys[i].a = math.MaxUint64 - rng.Uint64N(4) // too wide with the chat
			}
		}
		idx := make([]int32, n)
		for i := range idx {
			idx[i] = int32(i)
		}
		rng.Shuffle(n, func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		if round%3 == 0 {
			slices.Sort(idx)
		}
		key := func(i int32) sortKey { k := keys[i]; k.idx = -1; return k }
		want := slices.Clone(idx)
		slices.SortFunc(want, func(p, q int32) int {
			return cmp.Or(compareKeys(keys[p], keys[q]), cmp.Compare(p, q))
		})
		sortByKey(idx, key)
		if !slices.Equal(idx, want) {
			t.Fatalf("round %d (n=%d): sortByKey differs from a comparison sort", round, n)
		}
	}
}
