package checker

import (
	"fmt"

	"github.com/chatseq/chatseq/checker/internal/store"
)

// NameAllocationMonotonicity is the invariant's name as HISTORY.md spells it.
const NameAllocationMonotonicity = "allocation_monotonicity"

// checkAllocationMonotonicity: allocations on one chat never return the same
// value, and one that completed before another began returned the smaller
// value (ADR-004 Appendix C, with HISTORY.md's intervals for "time").
func checkAllocationMonotonicity(x *index) Result {
	v := newVerdict(NameAllocationMonotonicity)
	if x.Allocs.Len() == 0 {
		v.notApplicable("no allocate traces in the history")
		return v.result()
	}
	buf := make([]store.Interval, 0, store.MaxSpan(x.AllocSpan))
	acks := 0
	for c := range x.ChatNames {
		lo, hi := store.Span(x.AllocSpan, int32(c))
		if hi > lo && x.InitialCounter > 0 && x.AllocSeq(x.AllocBySeq[lo]) <= x.InitialCounter {
			// The counter only grows from where it stood before the run.
			a := x.AllocBySeq[lo]
			v.fail([]int{int(x.Allocs.At(a).Line)}, "chat %q: an allocation returned %d (line %d), not above initial_counter %d, where the counter stood before the run",
				x.ChatNames[c], x.AllocSeq(a), x.Allocs.At(a).Line, x.InitialCounter)
		}
		buf = buf[:0]
		for _, a := range x.AllocBySeq[lo:hi] {
			buf = append(buf, store.Interval{Start: x.Allocs.At(a).Start, End: x.AllocEnd(a), Value: x.AllocSeq(a), Ref: a})
		}
		// A persist that traced nothing but was answered ok as new
		// allocated its sequence within its interval: a counter that
		// restarted under traced allocations and handed out an acked
		// sequence again passed, the ack untraced (a red-team's).
		for _, o := range x.UntracedNew[c] {
			buf = append(buf, store.Interval{Start: x.Call(o), End: x.Ret(o), Value: x.AckSeq(o), Ref: -1 - o})
			acks++
		}
		n, first := store.FindOrderViolations(buf, store.EqualAlwaysViolates)
		if n == 0 {
			continue
		}
		h, l := first.Hi, first.Lo
		// The earlier allocation's end and the later one's start are the
		// evidence; for a repeated value, the two lines that show it.
		hl, ll := allocLine(x, h.Ref), allocLine(x, l.Ref)
		if h.Value == l.Value {
			v.fail([]int{hl, ll}, "chat %q: %d allocations returned one value more than once, e.g. %d at lines %d and %d",
				x.ChatNames[c], n, h.Value, hl, ll)
		} else {
			v.fail(append([]int{hl}, allocStartLines(x, l.Ref)...), "chat %q: %d allocations returned a value below one already returned, e.g. %d (line %d) returned at time %d, before the allocation of %d (line %d) began at %s",
				x.ChatNames[c], n, h.Value, hl, h.End, l.Value, ll, startText(l.Start))
		}
	}
	if acks > 0 {
		v.note("%s of persists that traced none taken as their allocations", plural(acks, "ack as new"))
	}
	v.pass("%s on %s: each chat's strictly increase in real time", plural(x.Allocs.Len()+acks, "allocation"), plural(len(x.ChatNames), "chat"))
	return v.result()
}

func startText(t int64) string {
	if t == store.TimeMin {
		return "an unknown time"
	}
	return fmt.Sprintf("time %d", t)
}

// allocLine is the line that shows an allocation's value: its trace line,
// or, for an untraced persist's ack (ref -1-o), the ack.
func allocLine(x *index, ref int32) int {
	if ref < 0 {
		return x.DoneLine(-1 - ref)
	}
	return int(x.Allocs.At(ref).Line)
}

// allocStartLines is what shows where an allocation began: the trace line
// (and its persist's invoke without a start), or an untraced persist's
// invoke and ack.
func allocStartLines(x *index, ref int32) []int {
	if ref < 0 {
		return []int{x.DoneLine(-1 - ref), x.InvLine(-1 - ref)}
	}
	return x.AllocStartLines(ref)
}
