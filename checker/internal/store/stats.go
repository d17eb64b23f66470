package store

import (
	"github.com/chatseq/chatseq/checker/internal/render"
	"time"
)

// OpStats counts the operations by kind and outcome.
func (x *Index) OpStats() render.Stats {
	s := render.Stats{Operations: x.Ops.Len(), ErrorCodes: map[string]int{}}
	for i := range x.Ops.Count() {
		o := int32(i)
		if x.Ops.At(i).Fn == FnPersist && x.Ops.At(i).Status == StOK {
			s.MaxAckedSeq = max(s.MaxAckedSeq, x.AckSeq(o))
		}
		if x.Ops.At(i).Fn == FnPersist {
			s.Persists++
		} else {
			s.Syncs++
		}
		switch x.Ops.At(i).Status {
		case StOK:
			s.OK++
			if x.IsDedup(o) {
				s.Dedup++
			}
		case StFail:
			s.Fail++
			s.ErrorCodes[x.ErrCode(o)]++
		case StInfo:
			s.Info++
			s.ErrorCodes[x.ErrCode(o)]++
		case StOpen:
			s.Info++
			s.Unfinished++
		}
	}
	return s
}

// IntervalGaps counts, per interval of the history's clock, the traced
// allocations and those whose sequence no final message holds on a chat
// whose counter survived.
//
// Each chat's allocations and messages are both sorted by sequence, so one
// merge tells which sequences have a message: a binary search per
// allocation made every probe a cache miss after a long run.
func (x *Index) IntervalGaps(every time.Duration) (allocs, gaps []int64) {
	interval := func(end int64) int {
		k := int(max(end, 0) / int64(every))
		for len(allocs) <= k {
			allocs, gaps = append(allocs, 0), append(gaps, 0)
		}
		return k
	}
	for a := range x.Allocs.Count() {
		allocs[interval(x.AllocEnd(a))]++
	}
	for c := range int32(len(x.ChatNames)) {
		if fi, _ := x.CounterOf(c); fi < 0 {
			continue
		}
		mlo, mhi := Span(x.MsgSpan, c)
		alo, ahi := Span(x.AllocSpan, c)
		ms, i := x.Msgs[mlo:mhi], 0
		for _, a := range x.AllocBySeq[alo:ahi] {
			seq := x.AllocSeq(a)
			for i < len(ms) && x.Fin.At(ms[i]).Seq < seq {
				i++
			}
			if i == len(ms) || x.Fin.At(ms[i]).Seq != seq {
				gaps[interval(x.AllocEnd(a))]++
			}
		}
	}
	return allocs, gaps
}
