package online

import (
	"math/rand/v2"
	"testing"

	"github.com/chatseq/chatseq/checker/internal/columns"
	"github.com/chatseq/chatseq/checker/internal/store"
)

// Every noteSent, get and sentOf of a chat's first acks answers alike
// with the blocks spilled (and reused) and held.
func TestReusedSpilledBlocksAnswerAsHeld(t *testing.T) {
	for seed := range uint64(8) {
		rng := rand.New(rand.NewPCG(seed, 36))
		f, err := columns.NewCachedSpillFile(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		var held, spilled onlineAcked
		top := uint64(0)
		for i := range 60000 {
			var seq uint64
			switch r := rng.IntN(100); {
			case r < 70:
				top++
				seq = top
			case r < 80:
				top += uint64(rng.IntN(1500))
				seq = top
			case r < 95:
				seq = 1 + rng.Uint64N(top+1)
			case r < 97:
				seq = top + uint64(rng.IntN(1<<20))
			default:
				seq = 1 + rng.Uint64N(top+3000)
			}
			switch rng.IntN(3) {
			case 0, 1:
				mid := rng.Uint64N(1 << 40)
				var sent store.Carried
				if rng.IntN(2) == 0 {
					sent = store.Carried{Payload: rng.Uint64() | 1, Sender: 7}
				}
				a, aok := held.noteSent(seq, int32(i+1), mid, sent, nil)
				b, bok := spilled.noteSent(seq, int32(i+1), mid, sent, f)
				if a != b || aok != bok {
					t.Fatalf("seed %d step %d noteSent(%d): held %v %v, spilled %v %v", seed, i, seq, a, aok, b, bok)
				}
			default:
				a, aok := held.get(seq)
				b, bok := spilled.get(seq)
				if a != b || aok != bok {
					t.Fatalf("seed %d step %d get(%d): held %v %v, spilled %v %v", seed, i, seq, a, aok, b, bok)
				}
				c, cok := held.sentOf(seq)
				d, dok := spilled.sentOf(seq)
				if c != d || cok != dok {
					t.Fatalf("seed %d step %d sentOf(%d): held %v %v, spilled %v %v", seed, i, seq, c, cok, d, dok)
				}
			}
		}
		if f.Written == 0 {
			t.Fatalf("seed %d: nothing spilled", seed)
		}
		if err := f.Err(); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
}
