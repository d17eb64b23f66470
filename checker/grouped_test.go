package checker

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/chatseq/chatseq/checker/internal/store"
	"github.com/chatseq/chatseq/history"
)

// Grouping a Log's records by chat changes no report: the same histories,
// valid and broken, read into a Log that keeps every record in the order
// read, are judged the same, chats of thousands of operations included.
func TestGroupingByChatChangesNoReport(t *testing.T) {
	seeds, perChat := uint64(12), 5500
	if raceEnabled {
		// Under the race detector the valid seeds and one of each way
		// of breaking suffice; the whole count runs without it.
		seeds = 8
	}
	for seed := range seeds {
		chats := 1 + int(seed%5)
		cfg := genConfig{chats: chats, writers: 24, readers: 2, ops: perChat*chats + 1000*int(seed%4), crash: 0.03, crashCommitted: 0.02, replay: 0.05, limit: 10, events: seed%2 == 0, gapless: seed%3 == 2, seed: seed}
		h := generate(cfg)
		if seed >= 4 {
			breakHistory(h, rand.New(rand.NewPCG(seed, 7)), int(seed%4))
		}
		grouped, inOrder := &Log{store.LogOf(h)}, NewLog()
		inOrder.RecordOrder = true
		for i := range h.Events {
			inOrder.Event(&h.Events[i])
		}
		for i := range h.Finals {
			inOrder.Final(&h.Finals[i])
		}
		if grouped.Ops.OwnBlocks() == 0 {
			t.Fatalf("seed %d: no chat got blocks of its own", seed)
		}
		a, b := grouped.Check(h, Options{}), inOrder.Check(h, Options{})
		a.Stats.CheckMillis, b.Stats.CheckMillis = 0, 0
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Fatalf("seed %d: grouped by chat:\n%s\nin record order:\n%s", seed, ja, jb)
		}
		if seed >= 4 && *a.Valid {
			t.Fatalf("seed %d: the broken history passed", seed)
		}
	}
}

// breakHistory breaks h in one of four ways, a few times over: acks
// moved to another's sequence, final messages dropped, sync answers
// missing an entry, allocations repeated (acks moved when h traces none).
func breakHistory(h *history.History, rng *rand.Rand, how int) {
	if how == 3 && !slices.ContainsFunc(h.Events, func(e history.Event) bool { return e.Kind == history.KindTrace }) {
		how = 0
	}
	for range 5 {
		switch how {
		case 0:
			var acks []int
			for i, e := range h.Events {
				if e.Kind == history.KindOK && e.F == history.FPersist {
					acks = append(acks, i)
				}
			}
			a, b := acks[rng.IntN(len(acks))], acks[rng.IntN(len(acks))]
			h.Events[a].Seq = h.Events[b].Seq
		case 1:
			var msgs []int
			for i, f := range h.Finals {
				if f.Table == history.TableMessages {
					msgs = append(msgs, i)
				}
			}
			i := msgs[rng.IntN(len(msgs))]
			h.Finals = slices.Delete(h.Finals, i, i+1)
		case 2:
			var syncs []int
			for i, e := range h.Events {
				if e.Kind == history.KindOK && e.Sync != nil && len(e.Sync.Seqs) > 1 {
					syncs = append(syncs, i)
				}
			}
			s := h.Events[syncs[rng.IntN(len(syncs))]].Sync
			j := rng.IntN(len(s.Seqs))
			s.Seqs = slices.Delete(slices.Clone(s.Seqs), j, j+1)
			if len(s.MessageIDs) > j {
				s.MessageIDs = slices.Delete(slices.Clone(s.MessageIDs), j, j+1)
			}
		case 3:
			var traces []int
			for i, e := range h.Events {
				if e.Kind == history.KindTrace {
					traces = append(traces, i)
				}
			}
			a, b := traces[rng.IntN(len(traces))], traces[rng.IntN(len(traces))]
			if h.Events[a].Chat == h.Events[b].Chat {
				h.Events[a].Seq = h.Events[b].Seq
			} else {
				h.Events[a].Seq = 0
			}
		}
	}
}
