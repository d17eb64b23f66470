package checker

import (
	"fmt"
	"github.com/chatseq/chatseq/checker/internal/store"
)

// NameCounterIsLastAllocated is the invariant's name as HISTORY.md spells it.
const NameCounterIsLastAllocated = "counter_is_last_allocated"

// checkCounterIsLastAllocated: the final counter equals the last traced
// allocation (ADR-004 counter_is_last_allocated); a missing counter is
// ADR-004's counter_must_exist incident, and so is a chat of the history
// without a line in a counters table that was read (table_read).
func checkCounterIsLastAllocated(x *index) Result {
	v := newVerdict(NameCounterIsLastAllocated)
	if !x.HasCounters {
		v.notApplicable("no final counters lines")
		return v.result()
	}
	for _, pair := range x.CounterConflicts {
		first, other := x.Fin.At(pair[0]), x.Fin.At(pair[1])
		v.fail([]int{int(first.Line), int(other.Line)}, "chat %q: the counters table holds two lines that disagree, %s (line %d) and %s (line %d): a counter holds one value",
			x.ChatNames[first.Chat], counterText(first), first.Line, counterText(other), other.Line)
	}
	u := unjudged{}
	judged, present := 0, 0
	var explained uint64
	for c := int32(0); c < int32(len(x.ChatNames)); c++ {
		fi := x.Counter[c]
		if read, ok := x.Read[store.TableCounters]; fi < 0 && ok {
			// The table's content is known: every chat of the history
			// has its counter, or lost it (ADR-004 counter_must_exist).
			v.fail([]int{read}, "chat %q: counter missing: the counters table was read (line %d) and holds no line for it (ADR-004 counter_must_exist, a SEV-2 correctness incident)", x.ChatNames[c], read)
			continue
		}
		if fi < 0 {
			if x.Active(c) {
				u.add("no final counters line", c)
			}
			continue
		}
		f := x.Fin.At(fi)
		if f.Missing {
			v.fail([]int{int(f.Line)}, "chat %q: counter missing (line %d): ADR-004 counter_must_exist, a SEV-2 correctness incident", x.ChatNames[f.Chat], f.Line)
			continue
		}
		present++
		if f.Value() < x.InitialCounter {
			// Whatever was traced: the counter only grows from where it
			// stood before the run.
			v.fail([]int{int(f.Line)}, "chat %q: final counter is %d (line %d), below initial_counter %d, where it stood before the run", x.ChatNames[f.Chat], f.Value(), f.Line, x.InitialCounter)
			continue
		}
		if x.Allocs.Len() == 0 {
			continue
		}
		judged++
		lo, hi := store.Span(x.AllocSpan, c)
		last := x.InitialCounter
		lines := []int{int(f.Line)}
		if hi > lo {
			a := x.AllocBySeq[hi-1]
			last = x.AllocSeq(a)
			lines = append(lines, int(x.Allocs.At(a).Line))
		}
		// An untraced persist answered ok as new allocated its sequence
		// (trace lines are optional): a counter at it was judged above
		// the last traced allocation, a false FAIL (a red-team's).
		for _, o := range x.UntracedNew[c] {
			if s := x.AckSeq(o); s > last {
				last = s
				lines = []int{int(f.Line), x.DoneLine(o)}
			}
		}
		if f.Value() > last && f.Value()-last <= x.UnknownUntraced[c] {
			// Persists with unknown outcomes may have allocated without
			// the answer coming back: that explains the difference.
			explained += f.Value() - last
			continue
		}
		if f.Value() != last {
			what := "no allocation was traced"
			if len(lines) > 1 {
				what = fmt.Sprintf("the last allocation is %d (line %d)", last, lines[1])
			}
			v.fail(lines, "chat %q: final counter is %d (line %d) but %s", x.ChatNames[f.Chat], f.Value(), f.Line, what)
		}
	}
	if x.Allocs.Len() == 0 {
		v.notApplicable("no allocate traces: the last allocated sequence is not known (%s: the counter exists)", plural(present, "chat"))
	}
	u.report(x, v)
	if explained > 0 {
		v.pass("%s: counter equals the last allocation (traced, or an untraced persist's ack as new), or exceeds it by %d allocations that operations with unknown outcomes may have made", plural(judged, "chat"), explained)
	} else {
		v.pass("%s: counter equals the last allocation (traced, or an untraced persist's ack as new)", plural(judged, "chat"))
	}
	return v.result()
}

// counterText is a final counters line's value as a failure names it.
func counterText(f *store.FinalRecord) string {
	if f.Missing {
		return "missing"
	}
	return fmt.Sprintf("value %d", f.Value())
}
