package columns

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// Records added to groups are found by the numbers add gave, and compact
// numbers them densely: each group's records stay in the order added, a
// small group's share blocks with other groups', and renumbering says
// where each record went.
func TestGroupedKeepsEachGroupsOrderAndCompactsDensely(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	type rec struct{ group, nth int32 }
	var g Grouped[rec]
	var numbers []int32
	var added []rec
	perGroup := map[int32]int32{}
	// Group 0 is hot, 1..5 warm, 6..200 cold, -1 shares always.
	for range 20 * groupLen {
		var grp int32
		switch r := rng.IntN(10); {
		case r < 5:
			grp = 0
		case r < 8:
			grp = 1 + rng.Int32N(5)
		case r < 9:
			grp = 6 + rng.Int32N(195)
		default:
			grp = -1
		}
		v := rec{grp, perGroup[grp]}
		perGroup[grp]++
		i := g.Add(grp, v)
		if *g.At(i) != v {
			t.Fatalf("at(%d) = %v, want %v", i, *g.At(i), v)
		}
		numbers, added = append(numbers, i), append(added, v)
	}
	for k, i := range numbers { // nothing added later moved an earlier record
		if *g.At(i) != added[k] {
			t.Fatalf("at(%d) = %v after every add, want %v", i, *g.At(i), added[k])
		}
	}
	if len(slices.Compact(slices.Sorted(slices.Values(numbers)))) != len(numbers) {
		t.Fatal("two records were given one number")
	}
	own := 0
	for b := range g.blocks {
		if g.blocks[b][0].group == 0 && len(g.blocks[b]) == groupLen && !slices.ContainsFunc(g.blocks[b], func(r rec) bool { return r.group != 0 }) {
			own++
		}
	}
	if own < 5 { // 10 blocks' worth of group 0, its first 4 in shared blocks
		t.Fatalf("group 0 has %d full blocks of its own, want at least 5", own)
	}
	at := g.Renumbering()
	n := g.Len()
	dense := g.Compact()
	if dense.Len() != n || n != len(added) {
		t.Fatalf("compacted %d records of %d, added %d", dense.Len(), n, len(added))
	}
	for k, i := range numbers {
		if got := *dense.At(at.Of(i)); got != added[k] {
			t.Fatalf("record %d renumbered to %d holds %v, want %v", i, at.Of(i), got, added[k])
		}
	}
	next := map[int32]int32{}
	dense.Each(func(r *rec) {
		if r.nth != next[r.group] {
			t.Fatalf("group %d: record %d follows %d", r.group, r.nth, next[r.group]-1)
		}
		next[r.group]++
	})
}
