package checker

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/chatseq/chatseq/checker/internal/store"
	"github.com/chatseq/chatseq/history"
)

// intervalGapsBySearch is intervalGaps as it was first written, one binary
// search of the chat's messages per allocation: the reference the merge
// must agree with.
func (x *index) intervalGapsBySearch(every time.Duration) (allocs, gaps []int64) {
	for a := range x.Allocs.Count() {
		al := x.Allocs.At(a)
		k := int(max(al.End, 0) / int64(every))
		for len(allocs) <= k {
			allocs, gaps = append(allocs, 0), append(gaps, 0)
		}
		allocs[k]++
		c := x.Counter[al.Chat]
		if c < 0 || x.Fin.At(c).Missing {
			continue
		}
		if i, j := x.msgAt(al.Chat, al.Seq); i == j {
			gaps[k]++
		}
	}
	return allocs, gaps
}

// The merge over each chat's sorted allocations and messages counts the
// same gaps per interval as a search per allocation, on random runs with
// crashes, with final messages dropped or duplicated, counters missing or
// absent, and allocations above the counter or at sequences shared by
// several allocations.
func TestIntervalGapsMergeAgreesWithSearch(t *testing.T) {
	for seed := range uint64(400) {
		rng := rand.New(rand.NewPCG(seed, 7))
		h := generate(genConfig{chats: 1 + rng.IntN(4), writers: 1 + rng.IntN(6), readers: rng.IntN(2), ops: 20 + rng.IntN(200),
			crash: 0.2, crashCommitted: 0.1, replay: 0.1, limit: 5, seed: seed})
		var fins []history.Final
		for _, f := range h.Finals {
			switch {
			case f.Table == history.TableMessages && rng.IntN(5) == 0:
				continue // a lost message: one more gap
			case f.Table == history.TableMessages && rng.IntN(10) == 0:
				fins = append(fins, f) // the same sequence twice
			case f.Table == history.TableCounters && rng.IntN(6) == 0:
				f.Missing, f.Value = true, 0
			case f.Table == history.TableCounters && rng.IntN(6) == 0:
				if f.Value > 2 {
					f.Value -= 2 // allocations above the counter
				}
			case f.Table == history.TableCounters && rng.IntN(8) == 0:
				continue // no counter line for the chat
			}
			fins = append(fins, f)
		}
		h.Finals = fins
		x := indexOf(h)
		every := time.Duration(1 + rng.IntN(40))
		allocs, gaps := x.IntervalGaps(every)
		wantAllocs, wantGaps := x.intervalGapsBySearch(every)
		if !slices.Equal(allocs, wantAllocs) || !slices.Equal(gaps, wantGaps) {
			t.Fatalf("seed %d: merge gave allocations %v gaps %v, search %v and %v", seed, allocs, gaps, wantAllocs, wantGaps)
		}
		if seed == 0 && slices.Max(append(gaps, 0)) == 0 {
			t.Fatal("seed 0 has no gaps: the comparison tests nothing")
		}
	}
}

// msgAt returns the range of chat c's final messages at seq, by a binary
// search: the reference the merge is compared with.
func (x *index) msgAt(c int32, seq uint64) (int, int) {
	lo, hi := store.Span(x.MsgSpan, c)
	s := x.Msgs[lo:hi]
	i, _ := slices.BinarySearchFunc(s, seq, func(m int32, t uint64) int { return cmp.Compare(x.Fin.At(m).Seq, t) })
	j := i
	for j < len(s) && x.Fin.At(s[j]).Seq == seq {
		j++
	}
	return lo + i, lo + j
}
