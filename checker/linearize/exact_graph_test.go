package linearize

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// The range trees' edges are derived, not stored (rangeTree.succ): a path
// from a node linked before a range must reach, through aux nodes only,
// exactly the leaves of its ranges, and the leaves of a range linked after
// a node exactly that node, for any number of leaves.
func TestRangeTreeReachesExactlyItsRanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	for run := range 400 {
		nLeaves := 1 + rng.IntN(40)
		nLinks := 1 + rng.IntN(6)
		var g pgraph
		leaves := make([]int32, nLeaves)
		for i := range leaves {
			leaves[i] = g.node(0, 0, -1)
		}
		// Some leaves are not the first nodes: the tree must not assume it.
		rng.Shuffle(len(leaves), func(i, j int) { leaves[i], leaves[j] = leaves[j], leaves[i] })
		type link struct {
			v, l, r int32
			after   bool
		}
		links := make([]link, nLinks)
		for i := range links {
			l := rng.Int32N(int32(nLeaves))
			links[i] = link{v: g.node(0, 0, -1), l: l, r: l + 1 + rng.Int32N(int32(nLeaves)-l), after: rng.IntN(2) == 0}
		}
		tree := newRangeTree(&g, leaves)
		for _, k := range links {
			if k.after {
				tree.after(&g, k.v, k.l, k.r)
			} else {
				tree.before(&g, k.v, k.l, k.r)
			}
		}
		tree.link(&g)
		if _, acyclic := g.solve(); !acyclic {
			t.Fatalf("run %d: a cycle among %d leaves and links %v", run, nLeaves, links)
		}
		// Real nodes reached from v through aux nodes only.
		reach := func(v int32) []int32 {
			var got []int32
			seen := map[int32]bool{v: true}
			stack := []int32{v}
			for len(stack) > 0 {
				u := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				for w := range g.succ(u) {
					if seen[w] {
						continue
					}
					seen[w] = true
					if w < g.real() {
						got = append(got, w)
					} else {
						stack = append(stack, w)
					}
				}
			}
			slices.Sort(got)
			return got
		}
		for _, k := range links {
			if k.after {
				continue
			}
			want := slices.Clone(leaves[k.l:k.r])
			slices.Sort(want)
			if got := reach(k.v); !slices.Equal(got, want) {
				t.Fatalf("run %d: %d leaves, before [%d,%d): reached %v, want %v", run, nLeaves, k.l, k.r, got, want)
			}
		}
		for i, leaf := range leaves {
			var want []int32
			for _, k := range links {
				if k.after && k.l <= int32(i) && int32(i) < k.r {
					want = append(want, k.v)
				}
			}
			slices.Sort(want)
			want = slices.Compact(want)
			if got := reach(leaf); !slices.Equal(got, want) {
				t.Fatalf("run %d: %d leaves, leaf %d reached %v, want %v (links %v)", run, nLeaves, i, got, want, links)
			}
		}
		for _, k := range links {
			if k.after && len(reach(k.v)) > 0 {
				t.Fatalf("run %d: a node linked after a range reaches %v", run, reach(k.v))
			}
		}
	}
}

func TestRangeTreeCount(t *testing.T) {
	for _, size := range []int{1, 2, 3, 7, 8, 33} {
		leaves := make([]int32, size)
		tree := newRangeTree(&pgraph{}, leaves)
		for l := range int32(size) {
			for r := l + 1; r <= int32(size); r++ {
				n := 0
				tree.each(l, r, func(int32) { n++ })
				if got := tree.count(l, r); got != n {
					t.Fatalf("%d leaves, [%d,%d): count %d, each %d", size, l, r, got, n)
				}
			}
		}
	}
}

// sortFacts sorts by sequence alone (facts are made in kind, ref order);
// with mergeFacts it must give the order of sequence, kind, then ref, also
// when sequences span more than the packed sort takes.
func TestSortFactsOrdersFully(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	full := func(a, b seqFact) int {
		switch {
		case a.seq != b.seq:
			return cmp.Compare(a.seq, b.seq)
		case a.kind != b.kind:
			return cmp.Compare(a.kind, b.kind)
		}
		return cmp.Compare(a.ref, b.ref)
	}
	for run := range 300 {
		span := uint64(1 + rng.IntN(50))
		if run%3 == 0 {
			span = 1 << 40
		}
		base := rng.Uint64N(1 << 50)
		seq := func() uint64 { return base + rng.Uint64N(span) }
		var facts, extra []seqFact
		var ref int32
		for kind := range uint8(3) {
			ref = rng.Int32N(5) // each kind numbers its refs apart
			for range rng.IntN(60) {
				ref += 1 + rng.Int32N(3)
				facts = append(facts, seqFact{seq: seq(), kind: kind, ref: ref})
			}
		}
		for range rng.IntN(30) {
			ref += 1 + rng.Int32N(3)
			extra = append(extra, seqFact{seq: seq(), kind: factObserved, ref: ref})
		}
		want := slices.Concat(facts, extra)
		slices.SortFunc(want, full)
		sortFacts(facts)
		sortFacts(extra)
		if got := mergeFacts(facts, extra); !slices.Equal(got, want) {
			t.Fatalf("run %d: got %v, want %v", run, got, want)
		}
	}
}
