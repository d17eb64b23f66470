package store

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history"
)

// PersistedIn lists each acknowledged (sequence, id) of a chat once, in
// sequence order, whether a sequence holds a few messages or many: past
// manyAtOneSeq it keeps a set of their ids (looking through them all for
// each ack took minutes for 100,000 acks of one sequence). The list is the
// one a plain look through gives.
func TestPersistedInListsEachAckedMessageOnce(t *testing.T) {
	for _, perSeq := range []int{1, 3, manyAtOneSeq, manyAtOneSeq + 1, 200} {
		rng := rand.New(rand.NewPCG(uint64(perSeq), 7))
		var b strings.Builder
		b.WriteString(`{"format":"chatseq-history","version":1}` + "\n")
		for i := range 3 * perSeq * 4 {
			seq := 1 + rng.IntN(3)
			id := fmt.Sprintf("m%d-%d", seq, rng.IntN(perSeq))
			fmt.Fprintf(&b, `{"type":"invoke","process":1,"f":"persist","time":%d,"chat":"c","key":"k%d"}`+"\n", 2*i, i)
			fmt.Fprintf(&b, `{"type":"ok","process":1,"f":"persist","time":%d,"seq":%d,"message_id":"%s"}`+"\n", 2*i+1, seq, id)
		}
		h, err := history.Read(strings.NewReader(b.String()), "h.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		x := IndexOf(h)
		got := x.PersistedIn(0, nil)
		var want []PersistedMsg
		lo, hi := Span(x.AckSpan, 0)
		for _, o := range x.Acks[lo:hi] {
			s, id := x.AckSeq(o), x.AckID(o)
			if !slices.ContainsFunc(want, func(p PersistedMsg) bool { return p.Seq == s && p.ID == id }) {
				want = append(want, PersistedMsg{Seq: s, ID: id, Line: x.DoneLine(o), Fin: -1})
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%d ids a sequence: listed %v, want %v", perSeq, got, want)
		}
		if !slices.IsSortedFunc(got, func(a, b PersistedMsg) int { return int(a.Seq) - int(b.Seq) }) {
			t.Errorf("%d ids a sequence: not in sequence order: %v", perSeq, got)
		}
	}
}
