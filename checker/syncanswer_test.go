package checker

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/chatseq/chatseq/checker/internal/store"
	"github.com/chatseq/chatseq/history"
)

// A sync answer is kept coded, its ids mostly read back from the acks
// (syncRef): on random histories, broken ones included (an id swapped, a
// sync returning what was not acked, acks moved), every answer must read
// back exactly as its line had it.
func TestSyncAnswersReadBackAsWritten(t *testing.T) {
	names := mutationNames()
	rng := rand.New(rand.NewPCG(7, 11))
	checked, fromAcks := 0, 0
	for run := range randomRuns(1500) {
		h := randomExactCase(rng, run, names).h
		x := indexOf(h)
		// The Log numbers operations in invoke order; find each sync's
		// completion line among them.
		byDone := map[int]int32{}
		for o := range x.Ops.Count() {
			byDone[x.DoneLine(o)] = o
		}
		var buf store.SyncBuf
		for i := range h.Events {
			e := &h.Events[i]
			if e.Kind != history.KindOK || e.F != history.FSync || e.Sync == nil {
				continue
			}
			o, ok := byDone[e.Line]
			if !ok {
				t.Fatalf("run %d: no operation completes at line %d", run, e.Line)
			}
			seqs, ids, ok := x.SyncResult(o, &buf)
			want := make([]uint64, len(e.Sync.MessageIDs))
			for k, id := range e.Sync.MessageIDs {
				want[k] = stringHash(id)
			}
			if !ok || !slices.Equal(seqs, e.Sync.Seqs) || !slices.Equal(ids, want) {
				t.Fatalf("run %d line %d: read back seqs %v ids %v, the line had %v %v", run, e.Line, seqs, ids, e.Sync.Seqs, want)
			}
			checked += len(seqs)
			fromAcks += len(seqs) - x.Syncs.At(x.Ops.At(o).Sync()).Mids.Len()
		}
	}
	if checked == 0 || fromAcks == 0 || fromAcks == checked {
		t.Fatalf("%d returned messages, %d of their ids from the acks: the test exercised only one way", checked, fromAcks)
	}
	t.Logf("%d returned messages, %d ids read from the acks", checked, fromAcks)
}
