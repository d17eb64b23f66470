package store

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSeqCursorFindsWhatAScanFinds compares seqCursor.Has with a scan of
// the chat's entries, on random views with repeated sequences, for
// look-ups in the views' own order (a merge), in random order (each may
// go back), and of chats with no entries.
func TestSeqCursorFindsWhatAScanFinds(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for round := range 300 {
		type entry struct {
			chat int32
			seq  uint64
			id   uint32
		}
		nchats := int32(1 + rng.IntN(6))
		entries := make([]entry, rng.IntN(200))
		for i := range entries {
			entries[i] = entry{chat: rng.Int32N(nchats), seq: uint64(1 + rng.IntN(40)), id: uint32(rng.IntN(4))}
		}
		view := make([]int32, len(entries))
		for i := range view {
			view[i] = int32(i)
		}
		slices.SortStableFunc(view, func(a, b int32) int {
			return cmp.Or(cmp.Compare(entries[a].chat, entries[b].chat), cmp.Compare(entries[a].seq, entries[b].seq))
		})
		sp := Spans(view, nchats, func(i int32) int32 { return entries[i].chat })
		scan := func(q entry) bool {
			return slices.ContainsFunc(entries, func(e entry) bool { return e == q })
		}
		queries := make([]entry, 400)
		for i := range queries {
			queries[i] = entry{chat: rng.Int32N(nchats), seq: uint64(rng.IntN(42)), id: uint32(rng.IntN(4))}
		}
		inOrder := slices.Clone(queries)
		slices.SortFunc(inOrder, func(a, b entry) int {
			return cmp.Or(cmp.Compare(a.chat, b.chat), cmp.Compare(a.seq, b.seq))
		})
		for name, qs := range map[string][]entry{"in view order": inOrder, "random order": queries} {
			cur := NewSeqCursor(view, sp, func(i int32) uint64 { return entries[i].seq }, func(i int32) uint32 { return entries[i].id })
			for _, q := range qs {
				if got, want := cur.Has(q.chat, q.seq, q.id), scan(q); got != want {
					t.Fatalf("round %d, %s: has(chat %d, seq %d, id %d) = %v, a scan says %v", round, name, q.chat, q.seq, q.id, got, want)
				}
			}
		}
	}
}
