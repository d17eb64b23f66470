package checker

import (
	"testing"

	"github.com/chatseq/chatseq/history"
)

// Under gaps: forbidden, a run on chats whose counters started at the
// header's initial_counter commits from initial_counter+1: gapless and
// linearizability judge from there, and messages from before the run that
// a sync shows are not the run's to explain (issue: a correct occ run with
// initial_counter 10 failed both, "no message at seq 1").
func TestInitialCounterUnderGapsForbidden(t *testing.T) {
	build := func(ack ...uint64) *hb {
		b := newHBContract(history.Contract{Gaps: history.GapsForbidden})
		b.h.Header.Extra = map[string]string{history.SoleWriterField: "true", "initial_counter": "10"}
		for i, s := range ack {
			b.send(1, "A", "k"+string(rune('a'+i)), s)
		}
		return b
	}
	b := build(11, 12)
	b.syncInvoke(2, "A", 0, 10)
	b.syncOKIDs(2, "A", []uint64{3, 11, 12}, []string{"from-before", "m-ka", "m-kb"})
	b.dump(false)
	r := b.check(t)
	must(t, r, NameGapless, Pass)
	must(t, r, NameLinearizability, Pass)

	b = build(11, 13) // 12 never committed
	b.dump(false)
	r = b.check(t)
	must(t, r, NameGapless, Fail)
	must(t, r, NameLinearizability, Fail)

	b = build(5) // below the run's first sequence
	r = b.check(t)
	res := must(t, r, NameLinearizability, Fail)
	mustContain(t, res.Detail, "above the initial counter 10")
}
