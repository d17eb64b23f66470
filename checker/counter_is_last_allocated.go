package checker

import (
	"fmt"
)

// NameCounterIsLastAllocated is the invariant's name as HISTORY.md spells it.
const NameCounterIsLastAllocated = "counter_is_last_allocated"

// checkCounterIsLastAllocated: the final counter equals the last traced
// allocation (ADR-004 counter_is_last_allocated); a missing counter is
// ADR-004's counter_must_exist incident, and so is a chat of the history
// without a line in a counters table that was read (table_read).
func checkCounterIsLastAllocated(x *index) Result {
	v := newVerdict(NameCounterIsLastAllocated)
	if !x.hasCounters {
		v.notApplicable("no final counters lines")
		return v.result()
	}
	u := unjudged{}
	judged, present := 0, 0
	var explained uint64
	for c := int32(0); c < int32(len(x.chatNames)); c++ {
		fi := x.counter[c]
		if read, ok := x.read[tableCounters]; fi < 0 && ok {
			// The table's content is known: every chat of the history
			// has its counter, or lost it (ADR-004 counter_must_exist).
			v.fail([]int{read}, "chat %q: counter missing: the counters table was read (line %d) and holds no line for it (ADR-004 counter_must_exist, a SEV-2 correctness incident)", x.chatNames[c], read)
			continue
		}
		if fi < 0 {
			if x.active(c) {
				u.add("no final counters line", c)
			}
			continue
		}
		f := x.fin.At(fi)
		if f.Missing {
			v.fail([]int{int(f.Line)}, "chat %q: counter missing (line %d): ADR-004 counter_must_exist, a SEV-2 correctness incident", x.chatNames[f.chat], f.Line)
			continue
		}
		present++
		if f.value() < x.initialCounter {
			// Whatever was traced: the counter only grows from where it
			// stood before the run.
			v.fail([]int{int(f.Line)}, "chat %q: final counter is %d (line %d), below initial_counter %d, where it stood before the run", x.chatNames[f.chat], f.value(), f.Line, x.initialCounter)
			continue
		}
		if x.allocs.Len() == 0 {
			continue
		}
		judged++
		lo, hi := span(x.allocSpan, c)
		last := x.initialCounter
		lines := []int{int(f.Line)}
		if hi > lo {
			a := x.allocBySeq[hi-1]
			last = x.allocSeq(a)
			lines = append(lines, int(x.allocs.At(a).line))
		}
		if f.value() > last && f.value()-last <= x.unknownUntraced[c] {
			// Persists with unknown outcomes may have allocated without
			// the answer coming back: that explains the difference.
			explained += f.value() - last
			continue
		}
		if f.value() != last {
			what := "no allocation was traced"
			if hi > lo {
				what = fmt.Sprintf("the last traced allocation is %d (line %d)", last, lines[1])
			}
			v.fail(lines, "chat %q: final counter is %d (line %d) but %s", x.chatNames[f.chat], f.value(), f.Line, what)
		}
	}
	if x.allocs.Len() == 0 {
		v.notApplicable("no allocate traces: the last allocated sequence is not known (%s: the counter exists)", plural(present, "chat"))
	}
	u.report(x, v)
	if explained > 0 {
		v.pass("%s: counter equals the last traced allocation, or exceeds it by %d allocations that operations with unknown outcomes may have made", plural(judged, "chat"), explained)
	} else {
		v.pass("%s: counter equals the last traced allocation", plural(judged, "chat"))
	}
	return v.result()
}
