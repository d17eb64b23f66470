package store

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
		keys := make([]SortKey, n)
		maxA := uint64(1) << rng.IntN(64)
		chats := int32(1 + rng.IntN(70))
		for i := range keys {
			keys[i] = SortKey{Chat: rng.Int32N(chats), A: rng.Uint64N(maxA), B: rng.Int64N(5) - 2}
			if round%4 == 1 {
				// b too wide to pack beside the pair: runs of equal pairs
				// are sorted by b apart (and b's range overflows int64).
				keys[i].B = int64(rng.Uint64() >> rng.UintN(64))
			}
			if i > 0 && rng.IntN(3) == 0 {
				keys[i].A = keys[rng.IntN(i)].A // equal pairs, sorted by b
			}
			if round%7 == 0 {
				keys[i].A = math.MaxUint64 - rng.Uint64N(4) // too wide with the chat
			}
		}
		idx := make([]int32, n)
		for i := range idx {
			idx[i] = int32(i)
		}
		rng.Shuffle(n, func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		switch round % 6 {
		case 0, 3:
			slices.Sort(idx)
		case 1:
			chatsInRuns(rng, idx, keys)
		case 2:
			// In chat runs but for one swap, or one chat split in two.
			chatsInRuns(rng, idx, keys)
			if n > 2 {
				i := rng.IntN(n - 1)
				idx[i], idx[i+1] = idx[i+1], idx[i]
				if rng.IntN(2) == 0 {
					j := rng.IntN(n)
					idx = append(idx[:j:j], append([]int32{idx[n-1]}, idx[j:n-1]...)...)
				}
			}
		}
		key := func(i int32) SortKey { k := keys[i]; k.Idx = -1; return k }
		want := slices.Clone(idx)
		slices.SortFunc(want, func(p, q int32) int {
			return cmp.Or(CompareKeys(keys[p], keys[q]), cmp.Compare(p, q))
		})
		SortByKey(idx, key)
		if !slices.Equal(idx, want) {
			t.Fatalf("round %d (n=%d): sortByKey differs from a comparison sort", round, n)
		}
	}
}

// chatsInRuns orders idx sorted within each chat, the chats one after
// another in a random order, as final messages walked chat by chat are.
func chatsInRuns(rng *rand.Rand, idx []int32, keys []SortKey) {
	if len(keys) == 0 {
		return
	}
	order := rng.Perm(1 + int(slices.MaxFunc(keys, func(a, b SortKey) int { return cmp.Compare(a.Chat, b.Chat) }).Chat))
	slices.SortFunc(idx, func(p, q int32) int {
		kp, kq := keys[p], keys[q]
		return cmp.Or(cmp.Compare(order[kp.Chat], order[kq.Chat]), cmp.Compare(kp.A, kq.A), cmp.Compare(kp.B, kq.B), cmp.Compare(p, q))
	})
}
