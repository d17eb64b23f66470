package memstore

import (
	"fmt"
	"hash/maphash"
	"testing"

	"github.com/chatseq/chatseq/store"
)

// Keys whose hashes collide are still told apart: with every key hashing
// alike, each lands further along one probe run (across the index's
// growths) and reads back as itself, and overwrites replace only their own
// key.
func TestIdempotencyTableTellsCollidingKeysApart(t *testing.T) {
	for _, name := range []string{"colliding", "hashed"} {
		t.Run(name, func(t *testing.T) {
			tab := newIdempotencyTable(maphash.MakeSeed())
			if name == "colliding" {
				tab.hash = func(string) uint64 { return 7 }
			}
			const n = 3000 // spans chunks
			for i := range n {
				tab.put(store.IdempotencyRecord{Key: fmt.Sprintf("k%d", i), Seq: uint64(i)})
			}
			tab.put(store.IdempotencyRecord{Key: "k5", Seq: 99999}) // an overwrite
			tab.put(store.IdempotencyRecord{Key: "k0", Seq: 88888}) // the first slot's key
			for i := range n {
				key := fmt.Sprintf("k%d", i)
				want := uint64(i)
				switch key {
				case "k5":
					want = 99999
				case "k0":
					want = 88888
				}
				got, ok := tab.get("chat", key)
				if !ok || got.Key != key || got.Seq != want {
					t.Fatalf("%s: got %+v (found %v), want seq %d", key, got, ok, want)
				}
			}
			if tab.has("absent") {
				t.Fatal("an absent key is found")
			}
			var order []string
			tab.each("chat", func(r store.IdempotencyRecord) { order = append(order, r.Key) })
			if len(order) != n || order[0] != "k0" || order[n-1] != fmt.Sprintf("k%d", n-1) {
				t.Fatalf("each visited %d records from %v, want %d in the order first written", len(order), order[:min(3, len(order))], n)
			}
		})
	}
}

// The index doubles before it is half full, and every key is still found
// after each growth.
func TestIdempotencyIndexGrowsAndKeepsEveryKey(t *testing.T) {
	tab := newIdempotencyTable(maphash.MakeSeed())
	sizes := map[int]bool{}
	for i := range 20000 {
		tab.put(store.IdempotencyRecord{Key: fmt.Sprintf("w%d-m%d", i%7, i), Seq: uint64(i + 1)})
		if 2*int(tab.count) > len(tab.index) {
			t.Fatalf("%d keys in an index of %d entries: more than half full", tab.count, len(tab.index))
		}
		sizes[len(tab.index)] = true
	}
	if len(sizes) < 8 {
		t.Fatalf("the index took %d sizes for 20000 keys, want it to have doubled at least 7 times", len(sizes))
	}
	for i := range 20000 {
		key := fmt.Sprintf("w%d-m%d", i%7, i)
		if got, ok := tab.get("chat", key); !ok || got.Seq != uint64(i+1) {
			t.Fatalf("%s after growth: %+v (found %v), want seq %d", key, got, ok, i+1)
		}
	}
}
