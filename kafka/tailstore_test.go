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
// blocks of records and of id bytes: when each partition arrives in offset
// order (a tail's case), when one does not, and for partition numbers the
// counting sort does not take (sorted's comparison sort).
func TestEventStoreGivesBackWhatTheTailRead(t *testing.T) {
	for _, tc := range []struct {
		name       string
		partitions []int32
		shuffle    bool
	}{
		{"each partition in offset order", []int32{0, 1, 2, 3, 4}, false},
		{"offsets out of order", []int32{0, 1, 2, 3, 4}, true},
		{"partition past the dense bound", []int32{0, 7, maxDensePartition, 3, 9}, false},
		{"negative partition", []int32{0, -1, 2, 3, 4}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			var added []Event
			next := map[int32]int64{}
			for i := range 3*storeBlock + 11 {
				p := tc.partitions[rng.IntN(len(tc.partitions))]
				added = append(added, Event{Chat: fmt.Sprint("chat-", rng.IntN(40)), Seq: uint64(i + 1), MessageID: fmt.Sprintf("msg_%026d", rng.Uint64()), Partition: p, Offset: next[p]})
				next[p]++
			}
			if tc.shuffle {
				// Swap neighbours' offsets within a partition now and then.
				last := map[int32]int{}
				for i, e := range added {
					if j, ok := last[e.Partition]; ok && rng.IntN(50) == 0 {
						added[i].Offset, added[j].Offset = added[j].Offset, added[i].Offset
					}
					last[e.Partition] = i
				}
			}
			var s eventStore
			for _, e := range added {
				s.add(e)
			}
			ps := tc.partitions
			until := map[int32]int64{ps[0]: next[ps[0]], ps[1]: next[ps[1]] / 2, ps[2]: 0, ps[3]: next[ps[3]]} // ps[4]: none
			var want []Event
			for _, e := range added {
				if end, ok := until[e.Partition]; ok && e.Offset < end {
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
		})
	}
}

// BenchmarkEventStoreSorted orders a default one-minute run's events: 1.5M
// over 12 partitions, each read in offset order.
func BenchmarkEventStoreSorted(b *testing.B) {
	var s eventStore
	next := map[int32]int64{}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 1_500_000 {
		p := rng.Int32N(12)
		s.add(Event{Chat: fmt.Sprint("chat-", p*5), Seq: uint64(i + 1), MessageID: "msg", Partition: p, Offset: next[p]})
		next[p]++
	}
	for b.Loop() {
		s.sorted(next)
	}
}
