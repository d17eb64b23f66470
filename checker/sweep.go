package checker

import (
	"cmp"
	"slices"
)

// interval is something that took effect at one instant within
// [start, end] (closed, as porcupine reads operations) and produced value.
type interval struct {
	start, end int64
	value      uint64
	ref        int32 // caller's reference
}

// orderViolation is a pair the real-time order contradicts: hi ended
// before lo started, yet hi.value >= lo.value.
type orderViolation struct{ hi, lo interval }

// equalValues says how two intervals with the same value are judged.
type equalValues bool

const (
	// equalAlwaysViolates: two values may never be equal (allocations:
	// DynamoDB ADD never returns one value twice).
	equalAlwaysViolates equalValues = true
	// equalViolatesIfOrdered: equal values violate only when one interval
	// precedes the other (sequence_monotonic's "smaller sequence").
	equalViolatesIfOrdered equalValues = false
)

// findOrderViolations decides exactly, in O(n log n), whether values
// increase with real time: whether some pair A, B has A.end < B.start
// (A completed before B began) and A.value >= B.value. It sorts by value and
// sweeps upward keeping the latest start among strictly lower values: an
// interval that ended before that start returned a higher value than one
// that began after it ended. Every violating pair (lo, hi) is caught at hi,
// because the running maximum start is at least lo.start > hi.end. Among
// equal values the interval that ends first is compared with the latest
// start of the others. It returns how many intervals are the later-valued
// side of some violation, and one violating pair.
//
// items is reordered.
func findOrderViolations(items []interval, eq equalValues) (count int, first *orderViolation) {
	slices.SortFunc(items, func(a, b interval) int {
		return cmp.Or(cmp.Compare(a.value, b.value), cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end))
	})
	record := func(hi, lo interval) {
		count++
		if first == nil {
			first = &orderViolation{hi: hi, lo: lo}
		}
	}
	var maxStart interval // the interval with the latest start among lower values
	haveLower := false
	for i := 0; i < len(items); {
		j := i
		for j < len(items) && items[j].value == items[i].value {
			j++
		}
		group := items[i:j]
		for _, it := range group {
			if haveLower && it.end < maxStart.start {
				record(it, maxStart)
			}
		}
		if len(group) > 1 {
			if eq == equalAlwaysViolates {
				record(group[1], group[0])
			} else if hi, lo, ok := orderedPair(group); ok {
				record(hi, lo)
			}
		}
		for _, it := range group {
			if !haveLower || it.start > maxStart.start {
				maxStart, haveLower = it, true
			}
		}
		i = j
	}
	return count, first
}

// orderedPair finds, among intervals of one value, one that ended before
// another started. Checking the earliest-ending interval against the latest
// start of the others suffices: any other ordered pair (a, b) has
// first.end <= a.end < b.start, and b is not first because first.start <=
// first.end.
func orderedPair(group []interval) (hi, lo interval, ok bool) {
	e := 0
	for k := range group {
		if group[k].end < group[e].end {
			e = k
		}
	}
	s := -1
	for k := range group {
		if k != e && (s < 0 || group[k].start > group[s].start) {
			s = k
		}
	}
	if s >= 0 && group[e].end < group[s].start {
		return group[e], group[s], true
	}
	return interval{}, interval{}, false
}
