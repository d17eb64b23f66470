package store

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/chatseq/chatseq/checker/internal/columns"
	"github.com/chatseq/chatseq/history"
)

// Equal strings share a number and unequal ones never do, even when their
// hashes collide; numbers are dense in order of first appearance.
func TestCanonicalSeparatesCollisions(t *testing.T) {
	names := []string{"a", "b", "a", "c", "b", "d", "a"}
	hashes := []uint64{5, 5, 5, 7, 5, 1, 5} // a and b collide
	got := Canonical(hashes, func(x, y int32) bool { return names[x] == names[y] })
	if want := []int32{0, 1, 0, 2, 1, 3, 0}; !slices.Equal(got, want) {
		t.Fatalf("canonical = %v, want %v", got, want)
	}
	if kept := Compact(got, slices.Clone(names)); !slices.Equal(kept, []string{"a", "b", "c", "d"}) {
		t.Fatalf("compact = %v", kept)
	}
}

// A key sent by several processes, and named again by the final lines, is
// one key once the Log is indexed; the same key in another chat is another.
func TestKeysAreOneAcrossProcessesAndFinals(t *testing.T) {
	l := NewLog()
	c0, c1 := l.Chat("c0"), l.Chat("c1")
	ids := []int32{
		l.KeyID(1, c0, 0, "k"), l.KeyID(2, c0, 1, "k"), l.KeyID(1, c0, 0, "k"),
		l.KeyID(3, c1, 0, "k"), l.NewKey(c0, NoSender, "k"), l.KeyID(2, c0, 1, "other"),
	}
	var ops columns.Chunked[Op]
	for _, k := range ids {
		ops.Add(Op{Key: k})
	}
	keyMap, midMap := l.CanonicalMaps(nil)
	RenumberOps(&ops, keyMap, midMap)
	var got []int32
	ops.Each(func(o *Op) { got = append(got, o.Key) })
	if want := []int32{0, 0, 0, 1, 0, 2}; !slices.Equal(got, want) || len(l.KeyNames) != 3 {
		t.Fatalf("keys %v (%d names), want %v", got, len(l.KeyNames), want)
	}
}

// The radix sort orders as a stable comparison sort by the bits it is
// given does (from lo up; the values have none above hi), equal digits
// kept in their order, with values spread over every digit and repeated.
func TestRadixSortIsAStableSortByItsBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 3, 33, 1000, 70000, 300000} {
		for _, r := range []struct{ lo, hi int }{{31, 64}, {0, 64}, {7, 30}, {20, 40}, {3, 12}} {
			a := make([]uint64, n)
			for i := range a {
				a[i] = rng.Uint64()
				if i > 0 && rng.IntN(4) == 0 {
					a[i] = a[rng.IntN(i)]&^(1<<r.lo-1) | rng.Uint64N(1<<r.lo) // equal bits above lo
				}
				if rng.IntN(8) == 0 {
					a[i] &= 0xffff // small ones too
				}
				if r.hi < 64 {
					a[i] &= 1<<r.hi - 1
				}
			}
			want := slices.Clone(a)
			slices.SortStableFunc(want, func(x, y uint64) int { return cmp.Compare(x>>r.lo, y>>r.lo) })
			columns.RadixSortRange(a, r.lo, r.hi)
			if !slices.Equal(a, want) {
				t.Fatalf("n=%d, bits %d to %d: radix sort differs from a stable sort", n, r.lo, r.hi)
			}
		}
	}
}

// Final lines that repeat an ack's message id (messages, idempotency and
// events lines alike) take the ack's number and keep no copy of the id:
// each copy cost about 46 bytes a message in a long run.
func TestFinalsRepeatingAnAckKeepNoNewID(t *testing.T) {
	l := NewLog()
	l.Event(&history.Event{Kind: history.KindInvoke, Process: 1, F: history.FPersist, Time: 1, Chat: "c", Key: "k", Line: 2})
	l.Event(&history.Event{Kind: history.KindOK, Process: 1, F: history.FPersist, Time: 2, Chat: "c", Key: "k", Seq: 1, MessageID: "m1", Line: 3})
	before := l.NewMids.Len()
	for i, table := range []string{history.TableMessages, history.TableIdempotency, history.TableEvents} {
		l.Final(&history.Final{Table: table, Chat: "c", Seq: 1, MessageID: "m1", Key: "k", Line: 4 + i})
	}
	if got := l.NewMids.Len(); got != before {
		t.Fatalf("%d message ids kept for three final lines repeating the ack, want none", got-before)
	}
	l.Final(&history.Final{Table: history.TableEvents, Chat: "c", Seq: 1, MessageID: "other", Line: 7})
	if got := l.NewMids.Len(); got != before+1 {
		t.Fatalf("an event with another id kept %d ids, want 1", got-before)
	}
	var ids []uint32
	l.Fin.Each(func(f *FinalRecord) { ids = append(ids, f.MessageID) })
	if ids[0] != ids[2] || ids[3] == ids[0] {
		t.Fatalf("final lines' message ids %v: the events line repeating the ack must share its number, the other not", ids)
	}
}
