package memstore

import (
	"fmt"
	"hash/maphash"
	"testing"
)

// Keys whose hashes collide are still told apart: with every key hashing
// alike, each lands in the collision map and reads back as itself, and
// overwrites replace only their own key.
func TestIdempotencyTableTellsCollidingKeysApart(t *testing.T) {
	for _, name := range []string{"colliding", "hashed"} {
		t.Run(name, func(t *testing.T) {
			tab := newIdempotencyTable(maphash.MakeSeed())
			if name == "colliding" {
				tab.hash = func(string) uint64 { return 7 }
			}
			const n = 3000 // spans chunks
			for i := range n {
				tab.put(idempotencyItem{key: fmt.Sprintf("k%d", i), seq: uint64(i)})
			}
			tab.put(idempotencyItem{key: "k5", seq: 99999}) // an overwrite
			tab.put(idempotencyItem{key: "k0", seq: 88888}) // the first slot's key
			for i := range n {
				key := fmt.Sprintf("k%d", i)
				want := uint64(i)
				switch key {
				case "k5":
					want = 99999
				case "k0":
					want = 88888
				}
				got, ok := tab.get(key)
				if !ok || got.key != key || got.seq != want {
					t.Fatalf("%s: got %+v (found %v), want seq %d", key, got, ok, want)
				}
			}
			if tab.has("absent") {
				t.Fatal("an absent key is found")
			}
			var order []string
			tab.each(func(item idempotencyItem) { order = append(order, item.key) })
			if len(order) != n || order[0] != "k0" || order[n-1] != fmt.Sprintf("k%d", n-1) {
				t.Fatalf("each visited %d records from %v, want %d in the order first written", len(order), order[:min(3, len(order))], n)
			}
		})
	}
}
