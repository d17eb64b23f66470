package checker

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/chatseq/chatseq/checker/internal/store"
	"github.com/chatseq/chatseq/history"
)

// The exact order sweeps must agree with porcupine deciding the same
// question with a monotone counter model (each value exceeds the one
// linearized before it), on thousands of small random histories.

// counterModel: a register of the last value; a step returning v is legal
// iff v exceeds it.
var counterModel = porcupine.Model{
	Init: func() any { return uint64(0) },
	Step: func(state, input, _ any) (bool, any) {
		v := input.(uint64)
		return v > state.(uint64), v
	},
}

func porcupineIncreasing(items []store.Interval) bool {
	ops := make([]porcupine.Operation, len(items))
	for i, it := range items {
		ops[i] = porcupine.Operation{ClientId: i, Input: it.Value, Call: it.Start, Return: it.End}
	}
	return porcupine.CheckOperations(counterModel, ops)
}

// bruteForce checks every pair: a violation is A ending before B starts
// with A.value >= B.value (or, for equalAlwaysViolates, any equal pair).
func bruteForce(items []store.Interval, eq store.EqualValues) bool {
	for i, a := range items {
		for j, b := range items {
			if i == j {
				continue
			}
			if eq == store.EqualAlwaysViolates && a.Value == b.Value {
				return false
			}
			if a.End < b.Start && a.Value >= b.Value {
				return false
			}
		}
	}
	return true
}

// randomIntervals draws n intervals over a small time range, so ties and
// touching endpoints are common, with values that may repeat. Half the
// histories are built valid: values follow an order consistent with real
// time, then perturbed by at most one swap.
func randomIntervals(rng *rand.Rand) []store.Interval {
	n := 1 + rng.IntN(7)
	span := int64(2 + rng.IntN(3*n))
	items := make([]store.Interval, n)
	for i := range items {
		s := rng.Int64N(span)
		items[i] = store.Interval{Start: s, End: s + rng.Int64N(span/2+1)}
	}
	if rng.IntN(2) == 0 {
		// A linearization point inside each interval, values in that order.
		points := make([]int, n)
		at := make([]float64, n)
		for i := range points {
			points[i] = i
			at[i] = float64(items[i].Start) + rng.Float64()*float64(items[i].End-items[i].Start)
		}
		slices.SortFunc(points, func(a, b int) int { return cmp.Compare(at[a], at[b]) })
		for rank, i := range points {
			items[i].Value = uint64(rank + 1)
		}
		if rng.IntN(3) == 0 && n > 1 {
			a, b := rng.IntN(n), rng.IntN(n)
			items[a].Value, items[b].Value = items[b].Value, items[a].Value
		}
	} else {
		for i := range items {
			items[i].Value = 1 + uint64(rng.IntN(n+1))
		}
	}
	for i := range items {
		items[i].Ref = int32(i)
	}
	return items
}

func TestSweepAgreesWithPorcupine(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	const runs = 20000
	var valid, invalid, distinct int
	for range runs {
		items := randomIntervals(rng)
		want := porcupineIncreasing(items)
		n, first := store.FindOrderViolations(slices.Clone(items), store.EqualAlwaysViolates)
		if (n == 0) != want {
			t.Fatalf("allocation sweep says %d violations, porcupine says linearizable=%v: %+v", n, want, items)
		}
		if first != nil && !(first.Hi.Value == first.Lo.Value || first.Hi.End < first.Lo.Start && first.Hi.Value > first.Lo.Value) {
			t.Fatalf("reported pair is not a violation: %+v in %+v", first, items)
		}
		if want {
			valid++
		} else {
			invalid++
		}
		// sequence_monotonic's mode: equal values only if ordered.
		rn, rfirst := store.FindOrderViolations(slices.Clone(items), store.EqualViolatesIfOrdered)
		if (rn == 0) != bruteForce(items, store.EqualViolatesIfOrdered) {
			t.Fatalf("real-time sweep says %d violations, brute force disagrees: %+v", rn, items)
		}
		if rfirst != nil && !(rfirst.Hi.End < rfirst.Lo.Start && rfirst.Hi.Value >= rfirst.Lo.Value) {
			t.Fatalf("reported pair is not a violation: %+v in %+v", rfirst, items)
		}
		if vals := valuesOf(items); len(slices.Compact(vals)) == len(items) {
			distinct++
			if (rn == 0) != want {
				t.Fatalf("distinct values: real-time sweep %d violations, porcupine linearizable=%v: %+v", rn, want, items)
			}
		}
	}
	if valid < runs/5 || invalid < runs/5 || distinct < runs/5 {
		t.Fatalf("unbalanced sample: %d valid, %d invalid, %d distinct-valued", valid, invalid, distinct)
	}
}

func valuesOf(items []store.Interval) []uint64 {
	vs := make([]uint64, len(items))
	for i, it := range items {
		vs[i] = it.Value
	}
	slices.Sort(vs)
	return vs
}

// historyOf writes intervals as a history: process i invokes a persist at
// start, its allocation trace and its ok (dedup=false, seq = value) at end.
func historyOf(items []store.Interval) *history.History {
	type stamped struct {
		e     history.Event
		order int
	}
	var evs []stamped
	for i, it := range items {
		chat, key := "A", fmt.Sprint("k", i)
		evs = append(evs,
			stamped{history.Event{Kind: history.KindInvoke, Process: i, F: history.FPersist, Chat: chat, Key: key, PayloadHash: key, Time: it.Start}, 0},
			stamped{history.Event{Kind: history.KindTrace, Process: i, F: history.FAllocate, Chat: chat, Seq: it.Value, Time: it.End}, 1},
			stamped{history.Event{Kind: history.KindOK, Process: i, F: history.FPersist, Chat: chat, Key: key, Seq: it.Value, MessageID: "m-" + key, Time: it.End}, 2})
	}
	slices.SortStableFunc(evs, func(a, b stamped) int { return cmp.Or(cmp.Compare(a.e.Time, b.e.Time), cmp.Compare(a.order, b.order)) })
	h := &history.History{Header: history.Header{Version: 1}}
	for i, s := range evs {
		s.e.Line = i + 2
		h.Events = append(h.Events, s.e)
	}
	return h
}

func TestOrderInvariantsAgreeWithPorcupine(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for range randomRuns(5000) {
		items := randomIntervals(rng)
		x := indexOf(historyOf(items))
		want := porcupineIncreasing(items)
		if got := checkAllocationMonotonicity(x); (got.Status == Pass) != want || got.Status == Unknown {
			t.Fatalf("allocation_monotonicity = %s (%s), porcupine linearizable=%v: %+v", got.Status, got.Detail, want, items)
		}
		wantRT := bruteForce(items, store.EqualViolatesIfOrdered)
		if got := checkSequenceMonotonic(x); (got.Status == Pass) != wantRT || got.Status == Unknown {
			t.Fatalf("sequence_monotonic = %s (%s), brute force=%v: %+v", got.Status, got.Detail, wantRT, items)
		}
	}
}
