package checker

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/chatseq/chatseq/checker/internal/store"
	"github.com/chatseq/chatseq/history"
)

// NameGapIsAllocation is the invariant's name as HISTORY.md spells it.
const NameGapIsAllocation = "gap_is_allocation_without_persistence"

// gapStats is what the gap walk learns, for Stats.
type gapStats struct {
	gaps      uint64
	allocated uint64
	causes    map[string]int
}

// checkGaps: every sequence 1..counter without a final message was handed
// out by a traced allocation whose persist did not complete (ADR-004
// gap_is_allocation_without_persistence); gaps are classified by how the
// allocating operation ended.
func checkGaps(x *index) (Result, gapStats) {
	v := newVerdict(NameGapIsAllocation)
	gs := gapStats{causes: map[string]int{}}
	if !x.HasCounters || !x.HasMessages {
		v.notApplicable("%s", x.Lacking(history.TableCounters, history.TableMessages))
		return v.result(), gs
	}
	u := unjudged{}
	traced := x.Allocs.Len() > 0
	untracedChats := 0
	for c := int32(0); c < int32(len(x.ChatNames)); c++ {
		fi, why := x.CounterOf(c)
		if fi < 0 {
			if x.Active(c) {
				u.add(why, c)
			}
			continue
		}
		f := x.Fin.At(fi)
		if f.Value() > x.InitialCounter {
			gs.allocated += f.Value() - x.InitialCounter
		}
		chatGaps, untraced, firstUntraced := x.walkGaps(c, f.Value(), gs.causes)
		gs.gaps += chatGaps
		switch {
		case chatGaps == 0:
		case !traced:
			untracedChats++
		case untraced > 0 && untraced <= x.UnknownUntraced[c]:
			// Allocations whose answers were lost (a timeout on step 3).
			gs.causes["unknown_outcome"] += int(untraced)
		case untraced > 0:
			gs.causes["untraced"] += int(min(untraced, 1<<62))
			v.fail([]int{int(f.Line)}, "chat %q: %d sequences ≤ counter %d (line %d) have neither a message nor a traced allocation, the first is %d",
				x.ChatNames[f.Chat], untraced, f.Value(), f.Line, firstUntraced)
		}
	}
	if untracedChats > 0 {
		v.notApplicable("%d gaps in %s but no allocate traces to explain them", gs.gaps, plural(untracedChats, "chat"))
	}
	u.report(x, v)
	v.pass("%s", gapSummary(gs))
	if v.Fails() > 0 {
		v.note("%s", gapSummary(gs))
	}
	return v.result(), gs
}

// walkGaps merges chat c's message and allocation sequences over 1..counter.
// Sequences are visited in runs, not one by one, so a corrupt counter of
// 10^18 costs no more than a sane one.
func (x *index) walkGaps(c int32, counter uint64, causes map[string]int) (gaps, untraced, firstUntraced uint64) {
	mlo, mhi := store.Span(x.MsgSpan, c)
	alo, ahi := store.Span(x.AllocSpan, c)
	ms, as := x.Msgs[mlo:mhi], x.AllocBySeq[alo:ahi]
	i, j := 0, 0
	prev := x.InitialCounter // sequences up to it predate the run
	// run counts prev+1..last, sequences neither persisted nor allocated.
	run := func(last uint64) {
		if last > prev {
			gaps += last - prev
			untraced += last - prev
			if firstUntraced == 0 {
				firstUntraced = prev + 1
			}
		}
	}
	for {
		for i < len(ms) && x.Fin.At(ms[i]).Seq <= x.InitialCounter {
			i++
		}
		for j < len(as) && x.AllocSeq(as[j]) <= x.InitialCounter {
			j++
		}
		next := uint64(0)
		if i < len(ms) {
			next = x.Fin.At(ms[i]).Seq
		}
		if j < len(as) && (next == 0 || x.AllocSeq(as[j]) < next) {
			next = x.AllocSeq(as[j])
		}
		if next == 0 || next > counter {
			break
		}
		run(next - 1)
		hasMsg := false
		for i < len(ms) && x.Fin.At(ms[i]).Seq == next {
			hasMsg = true
			i++
		}
		firstAlloc := int32(-1)
		for j < len(as) && x.AllocSeq(as[j]) == next {
			if firstAlloc < 0 {
				firstAlloc = as[j]
			}
			j++
		}
		if !hasMsg {
			gaps++
			causes[x.gapCause(firstAlloc)]++
		}
		prev = next
	}
	run(counter)
	return gaps, untraced, firstUntraced
}

// gapCause names how the operation that allocated a gap ended.
func (x *index) gapCause(a int32) string {
	o := x.Allocs.At(a).Op
	if o < 0 {
		return "unowned_allocation"
	}
	switch x.Ops.At(o).Status {
	case store.StOK:
		if x.IsDedup(o) {
			return "raced" // answered with another attempt's sequence
		}
		if x.AckSeq(o) == x.AllocSeq(a) {
			return "acked_but_missing"
		}
		return "acked_other_seq"
	case store.StOpen:
		return "unfinished"
	}
	return x.ErrCode(o)
}

func gapSummary(gs gapStats) string {
	if gs.gaps == 0 {
		return "no gaps in " + plural(int(gs.allocated), "allocated sequence")
	}
	s := fmt.Sprintf("%d gaps in %d allocated sequences (%.3g%%)", gs.gaps, gs.allocated, 100*float64(gs.gaps)/float64(gs.allocated))
	if len(gs.causes) > 0 {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(gs.causes)) {
			parts = append(parts, fmt.Sprintf("%s %d", k, gs.causes[k]))
		}
		s += ", by cause: " + strings.Join(parts, ", ")
	}
	return s
}

func judgeGaps(j *judging) Result {
	res, gs := checkGaps(j.x)
	j.stats.gaps = gs
	return res
}
