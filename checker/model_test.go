package checker

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/chatseq/chatseq/checker/linearize"
	"github.com/chatseq/chatseq/history"
)

// mutate breaks a copy of h at random: a sync answer loses or gains a
// sequence, an ack changes its sequence, or a replay flag flips.
func mutate(rng *rand.Rand, h *history.History) *history.History {
	c := *h
	c.Events = slices.Clone(h.Events)
	for tries := 0; tries < 20; tries++ {
		i := rng.IntN(len(c.Events))
		e := &c.Events[i]
		if e.Kind != history.KindOK {
			continue
		}
		switch {
		case e.F == history.FSync && e.Sync != nil:
			r := &history.SyncResult{Seqs: slices.Clone(e.Sync.Seqs), MessageIDs: slices.Clone(e.Sync.MessageIDs)}
			if len(r.Seqs) > 0 && rng.IntN(2) == 0 {
				j := rng.IntN(len(r.Seqs))
				r.Seqs, r.MessageIDs = slices.Delete(r.Seqs, j, j+1), slices.Delete(r.MessageIDs, j, j+1)
			} else {
				s := uint64(1 + rng.IntN(12))
				j, found := slices.BinarySearch(r.Seqs, s)
				if found || s <= c.Events[i-1].After {
					continue
				}
				r.Seqs, r.MessageIDs = slices.Insert(r.Seqs, j, s), slices.Insert(r.MessageIDs, j, "m-k"+string(rune('0'+rng.IntN(10))))
			}
			e.Sync = r
		case rng.IntN(2) == 0:
			e.Seq = uint64(1 + rng.IntN(12))
		default:
			e.Dedup = !e.Dedup
		}
		return &c
	}
	return &c
}

// The model's optimisations — persistent treaps with an incremental hash,
// and persists waiting for the syncs that did not see them — must not change
// porcupine's verdict: compare with the same model stepped without waits
// and without a hash, on thousands of small valid and broken histories.
func TestModelOptimisationsKeepVerdicts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	legal, illegal := 0, 0
	con := history.Contract{Gaps: history.GapsAllowed, KeyReuse: history.KeyReuseReturnOriginal}
	runs := randomRuns(3000)
	for run := range runs {
		h := generate(genConfig{chats: 1, writers: 2 + rng.IntN(3), readers: 1 + rng.IntN(2), ops: 6 + rng.IntN(10),
			crash: 0.15, crashCommitted: 0.15, replay: 0.2, limit: 1 + rng.IntN(4), seed: uint64(run)})
		if run%3 != 0 {
			h = mutate(rng, h)
		}
		if rng.IntN(2) == 0 {
			h.Finals = nil // wildcards instead of final bindings
		}
		x := indexOf(h)
		m, ops := x.ChatModel(0, con, true)
		if len(ops) == 0 {
			continue
		}
		fast := linearize.Porcupine(m, ops, 10*time.Second, 1<<30, nil)

		ref, refOps := x.ChatModel(0, con, true)
		model, _ := linearize.Reference(ref)
		want := porcupine.CheckOperations(model, refOps)
		if (fast.Status == linearize.Pass) != want || fast.Status == linearize.Unknown {
			t.Fatalf("run %d: optimised model says %s (%s), reference says linearizable=%v", run, fast.Status, fast.Detail, want)
		}
		if want {
			legal++
		} else {
			illegal++
		}
	}
	if legal < runs/6 || illegal < runs/6 {
		t.Fatalf("unbalanced sample: %d legal, %d illegal", legal, illegal)
	}
}

func TestLinearizabilityStaleRead(t *testing.T) {
	// Reader 2 starts after reader 1 saw message 1, yet does not see it.
	// The persist was still unacknowledged, so sync_completeness cannot
	// object; only the real-time order between the readers proves it.
	b := newHB()
	i := b.invoke(1, "A", "k1")
	b.alloc(1, "A", 1)
	b.commit("A", "k1", 1, "m-k1")
	s1 := b.syncInvoke(2, "A", 0, 10)
	o1 := b.syncOK(2, "A", 1)
	s2 := b.syncInvoke(3, "A", 0, 10)
	o2 := b.syncOK(3, "A")
	ok := b.ok(1, "A", "k1", 1, "m-k1")
	b.dump(false)
	r := b.check(t)
	must(t, r, NameSyncCompleteness, Pass)
	mustFail(t, r, NameLinearizability, i, ok, s1, o1, s2, o2)
}
