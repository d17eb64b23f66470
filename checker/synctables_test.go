package checker

import (
	"cmp"
	"github.com/chatseq/chatseq/checker/internal/store"
	"math/rand/v2"
	"slices"
	"testing"
)

// What the final hashes table holds, the final messages table holds: on
// random histories (broken ones included: messages sharing a sequence,
// ids swapped), holds(seq, h) is true only where hasMsgHashFrom finds a
// message of hash h at seq, and true for every sequence only one final
// message holds (of several, a sync naming one the table does not keep is
// looked up the slow way).
func TestFinalHashesHoldWhatTheTableHolds(t *testing.T) {
	names := mutationNames()
	rng := rand.New(rand.NewPCG(5, 13))
	held, shared := 0, 0
	var f finalHashes
	for run := range randomRuns(1500) {
		x := indexOf(randomExactCase(rng, run, names).h)
		if !x.HasMessages {
			continue
		}
		for c := int32(0); c < int32(len(x.ChatNames)); c++ {
			f.build(x, c)
			mlo, mhi := store.Span(x.MsgSpan, c)
			msgs := x.Msgs[mlo:mhi]
			at := map[uint64][]uint64{} // seq → hashes of its final messages
			for _, m := range msgs {
				r := x.Fin.At(m)
				at[r.Seq] = append(at[r.Seq], x.MidHash[r.MessageID])
			}
			for seq, hs := range at {
				for _, h := range append(hs, hs[0]+1, 0) {
					found, _, _ := x.HasMsgHashFrom(msgs, 0, seq, h)
					if f.holds(seq, h) && !found {
						t.Fatalf("run %d chat %d: the table holds seq %d with hash %x, the final messages do not", run, c, seq, h)
					}
				}
				if len(hs) > 1 {
					shared++
					continue
				}
				if hs[0] != 0 && !f.holds(seq, hs[0]) {
					t.Fatalf("run %d chat %d: seq %d's only final message is not in the table", run, c, seq)
				}
				held++
			}
			if f.holds(0, 1) || f.holds(^uint64(0), 1) {
				t.Fatalf("run %d chat %d: the table holds a sequence no final message has", run, c)
			}
		}
	}
	if held == 0 || shared == 0 {
		t.Fatalf("%d sequences held by one final message, %d by several: the histories do not try both", held, shared)
	}
}

// knownRanks places every sequence where sort1 and searchFrom do: dense
// knowns (ranked by index), sparse ones (searched), and sequences below,
// between and above them.
func TestKnownRanksPlaceAsSearchesDo(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 19))
	var r knownRanks
	for run := range 2000 {
		var ks []known
		seq := uint64(rng.IntN(5))
		for range rng.IntN(60) {
			seq += 1 + uint64(rng.IntN(3))
			if run%10 == 0 {
				seq += uint64(rng.IntN(1 << 20)) // too sparse for ranks
			}
			ks = append(ks, known{seq: seq})
		}
		r.build(ks)
		var probes []uint64
		for _, k := range ks {
			probes = append(probes, k.seq-1, k.seq, k.seq+1)
		}
		probes = append(probes, 0, seq+2, ^uint64(0))
		for _, s := range probes {
			want := sort1(ks, s)
			if got := r.rank(s); got != want {
				t.Fatalf("run %d: rank(%d) = %d, sort1 %d (knowns %v)", run, s, got, want, ks)
			}
			k, ok := r.find(s, rng.IntN(len(ks)+1))
			if k != want || ok != (want < len(ks) && ks[want].seq == s) {
				t.Fatalf("run %d: find(%d) = %d, %v; sort1 %d", run, s, k, ok, want)
			}
		}
	}
}

// sort1 is the first index of ks with seq >= s: knownRanks' reference.
func sort1(ks []known, s uint64) int {
	i, _ := slices.BinarySearchFunc(ks, s, func(k known, s uint64) int { return cmp.Compare(k.seq, s) })
	return i
}
