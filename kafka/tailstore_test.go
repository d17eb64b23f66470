package kafka

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// The store gives back exactly the events added, those below each
// partition's end offset only, in partition and offset order, across many
// blocks of records and of id bytes.
func TestEventStoreGivesBackWhatTheTailRead(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var s eventStore
	var added []Event
	next := map[int32]int64{}
	for i := range 3*storeBlock + 11 {
		p := rng.Int32N(5)
		e := Event{Chat: fmt.Sprint("chat-", rng.IntN(40)), Seq: uint64(i + 1), MessageID: fmt.Sprintf("msg_%026d", rng.Uint64()), Partition: p, Offset: next[p]}
		next[p]++
		s.add(e)
		added = append(added, e)
	}
	until := map[int32]int64{0: next[0], 1: next[1] / 2, 2: 0, 3: next[3]} // 4: none
	var want []Event
	for _, e := range added {
		if e.Offset < until[e.Partition] {
			want = append(want, e)
		}
	}
	slices.SortFunc(want, func(a, b Event) int {
		return cmp.Or(cmp.Compare(a.Partition, b.Partition), cmp.Compare(a.Offset, b.Offset))
	})
	got := s.sorted(until)
	if all := slices.Collect(got.All()); got.Len() != len(want) || !slices.Equal(all, want) {
		t.Fatalf("store gave %d events, want %d (or the same number, differing)", got.Len(), len(want))
	}
}
