package store

import (
	"cmp"
	"slices"
)

// Interval is something that took effect at one instant within
// [start, end] (closed, as porcupine reads operations) and produced value.
type Interval struct {
	Start, End int64
	Value      uint64
	Ref        int32 // caller's reference
}

// orderViolation is a pair the real-time order contradicts: hi ended
// before lo started, yet hi.value >= lo.value.
type orderViolation struct{ Hi, Lo Interval }

// EqualValues says how two intervals with the same value are judged.
type EqualValues bool

const (
	// EqualAlwaysViolates: two values may never be equal (allocations:
	// DynamoDB ADD never returns one value twice).
	EqualAlwaysViolates EqualValues = true
	// EqualViolatesIfOrdered: equal values violate only when one interval
	// precedes the other (sequence_monotonic's "smaller sequence").
	EqualViolatesIfOrdered EqualValues = false
)

// FindOrderViolations decides exactly, in O(n log n), whether values
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
func FindOrderViolations(items []Interval, eq EqualValues) (count int, first *orderViolation) {
	slices.SortFunc(items, func(a, b Interval) int {
		return cmp.Or(cmp.Compare(a.Value, b.Value), cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End))
	})
	record := func(hi, lo Interval) {
		count++
		if first == nil {
			first = &orderViolation{Hi: hi, Lo: lo}
		}
	}
	var maxStart Interval // the interval with the latest start among lower values
	haveLower := false
	for i := 0; i < len(items); {
		j := i
		for j < len(items) && items[j].Value == items[i].Value {
			j++
		}
		group := items[i:j]
		for _, it := range group {
			if haveLower && it.End < maxStart.Start {
				record(it, maxStart)
			}
		}
		if len(group) > 1 {
			if eq == EqualAlwaysViolates {
				record(group[1], group[0])
			} else if hi, lo, ok := orderedPair(group); ok {
				record(hi, lo)
			}
		}
		for _, it := range group {
			if !haveLower || it.Start > maxStart.Start {
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
func orderedPair(group []Interval) (hi, lo Interval, ok bool) {
	e := 0
	for k := range group {
		if group[k].End < group[e].End {
			e = k
		}
	}
	s := -1
	for k := range group {
		if k != e && (s < 0 || group[k].Start > group[s].Start) {
			s = k
		}
	}
	if s >= 0 && group[e].End < group[s].Start {
		return group[e], group[s], true
	}
	return Interval{}, Interval{}, false
}
