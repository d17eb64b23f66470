package linearize

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestTreapMatchesMapAndIsCanonical(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		n := rng.IntN(60)
		keys := make([]uint64, n)
		want := map[uint64]entry{}
		var root *tnode
		for i := range keys {
			keys[i] = uint64(rng.IntN(80))
			e := entry{seq: uint64(i), id: uint64(rng.IntN(5))}
			before := root
			root = tput(root, keys[i], e)
			want[keys[i]] = e
			if before != nil && tequal(before, root) && want[keys[i]] != e {
				t.Fatal("insert mutated a shared node")
			}
		}
		for k := uint64(0); k < 80; k++ {
			got, ok := tget(root, k)
			if w, wok := want[k]; ok != wok || got != w {
				t.Fatalf("tget(%d) = %v %v, want %v %v", k, got, ok, w, wok)
			}
		}
		after := uint64(rng.IntN(80))
		var asc []uint64
		tascend(root, after, func(k uint64, _ entry) bool { asc = append(asc, k); return true })
		var wantAsc []uint64
		for k := range want {
			if k > after {
				wantAsc = append(wantAsc, k)
			}
		}
		slices.Sort(wantAsc)
		if !slices.Equal(asc, wantAsc) {
			t.Fatalf("tascend(%d) = %v, want %v", after, asc, wantAsc)
		}
		// Same entries inserted in another order: the same shape.
		var other *tnode
		all := make([]uint64, 0, len(want))
		for k := range want {
			all = append(all, k)
		}
		slices.Sort(all)
		for _, i := range rng.Perm(len(all)) {
			other = tput(other, all[i], want[all[i]])
		}
		if !tequal(root, other) {
			t.Fatal("same entries, different shapes")
		}
		if len(all) > 0 {
			if tmax(root) != all[len(all)-1] {
				t.Fatalf("tmax = %d", tmax(root))
			}
			changed := tput(other, all[0], entry{seq: 999})
			if tequal(root, changed) {
				t.Fatal("different entries compare equal")
			}
		}
	}
}
