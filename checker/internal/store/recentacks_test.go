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

// A chat's table grows with its acks: a chat of one ack holds a few
// entries, not a block of ackBlock. A history of a million chats of one
// ack each (160 MB) made 40 GB of heap of such blocks and died of it
// under an 8 GB address-space limit (a red-team's), 5 GB resident without.
func TestRecentAcksOfManyChatsOfOneAckStaySmall(t *testing.T) {
	var r RecentAcks
	const chats = 10000
	for c := range int32(chats) {
		r.Remember(c, 1+uint64(c%3), AckAt{Mid: 1, MidHash: 7})
	}
	held := 0
	for c := range r.chats {
		for _, blk := range r.chats[c].blocks {
			held += cap(blk)
		}
	}
	if held > 16*chats {
		t.Fatalf("%d chats of one ack each hold %d entries, want at most %d", chats, held, 16*chats)
	}
	for c := range int32(chats) {
		if a := r.At(c, 1+uint64(c%3)); a == nil || a.Mid != 1 {
			t.Fatalf("chat %d: its ack was not remembered", c)
		}
	}
	// Growing the first block keeps what it held, up to and past a full one.
	for s := uint64(2); s < 3*ackBlock; s += 7 {
		r.Remember(0, s, AckAt{Mid: uint32(s), MidHash: s})
	}
	for s := uint64(2); s < 3*ackBlock; s += 7 {
		if a := r.At(0, s); a == nil || a.Mid != uint32(s) {
			t.Fatalf("chat 0 seq %d: ack lost as its table grew", s)
		}
	}
	if a := r.At(0, 1); a == nil || a.Mid != 1 {
		t.Fatal("chat 0 seq 1: the first ack was lost as its table grew")
	}
}
