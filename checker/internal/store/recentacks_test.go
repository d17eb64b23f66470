package store

import (
	"math/rand/v2"
	"testing"

	"github.com/chatseq/chatseq/checker/internal/columns"
)

// recentAcks, kept in blocks, answers as the rule it implements: per chat,
// the first ack at each sequence from the chat's first acked one on, far
// jumps (more than twice the table ahead) left out; also when it spills
// its older blocks, and fills the blocks it wrote out again for other
// sequences and chats (an entry left in one would be an ack remembered
// where none came).
func TestRecentAcksKeepsTheFirstAckAtEachSequence(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	type cs struct {
		chat int32
		seq  uint64
	}
	for run := range 200 {
		var r RecentAcks
		if run%2 == 1 {
			f, err := columns.NewCachedSpillFile(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			r.SpillTo(f, 0)
		}
		want := map[cs]uint32{}
		base, n := map[int32]uint64{}, map[int32]uint64{}
		for i := range 3000 {
			c := int32(rng.IntN(4))
			s := uint64(rng.IntN(5000))
			if rng.IntN(50) == 0 {
				s = rng.Uint64() // a far jump, or below the base
			}
			mid := uint32(i + 1)
			r.Remember(c, s, AckAt{Mid: mid, MidHash: uint64(mid) * 7})
			if _, ok := base[c]; !ok {
				base[c] = s
			}
			if s < base[c] {
				continue
			}
			if d := s - base[c]; d >= n[c] {
				if d > 2*n[c]+1024 {
					continue
				}
				n[c] = d + 1
			}
			if _, ok := want[cs{c, s}]; !ok {
				want[cs{c, s}] = mid
			}
		}
		h := r.Hashes()
		for c := int32(0); c < 5; c++ {
			for s := uint64(0); s < 12000; s++ {
				a := r.At(c, s)
				w, ok := want[cs{c, s}]
				switch {
				case ok != (a != nil):
					t.Fatalf("run %d chat %d seq %d: remembered %v, want %v", run, c, s, a != nil, ok)
				case ok && a.Mid != w:
					t.Fatalf("run %d chat %d seq %d: ack %d, want the first, %d", run, c, s, a.Mid, w)
				case h.At(c, s) != uint64(w)*7:
					t.Fatalf("run %d chat %d seq %d: hash %d, want %d", run, c, s, h.At(c, s), uint64(w)*7)
				}
			}
		}
	}
}
