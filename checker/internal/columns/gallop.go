package columns

import (
	"slices"
)

// searchFrom is slices.BinarySearchFunc for a target that lies at or after
// index from, as the next sequence of a sync's ascending answer does after
// the previous one: it looks 1, 2, 4… places ahead before it halves, so a
// sync's hundred look-ups cost about one step each instead of twenty cache
// misses each. A target before from is still found, by a whole search.
func SearchFrom[S ~[]E, E, T any](s S, from int, target T, compare func(E, T) int) (int, bool) {
	if from > len(s) {
		from = len(s)
	}
	if from > 0 && compare(s[from-1], target) >= 0 {
		return slices.BinarySearchFunc(s[:from], target, compare)
	}
	lo, step := from, 1 // every element before lo is below target
	hi := from
	for hi < len(s) && compare(s[hi], target) < 0 {
		lo = hi + 1
		hi += step
		step *= 2
	}
	hi = min(hi+1, len(s))
	i, found := slices.BinarySearchFunc(s[lo:hi], target, compare)
	return lo + i, found
}
