package history

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// randomFinals are final lines in runs of a table and chat, as a store's
// walk lists them, with strings that need escaping now and then.
func randomFinals(rng *rand.Rand, n int) []Final {
	tables := []string{TableCounters, TableMessages, TableIdempotency, TableEvents}
	chats := []string{"chat-0001", "chat-0002", "c\"quoted\"", "ünïcode", ""}
	fs := make([]Final, n)
	table, chat := tables[0], chats[0]
	for i := range fs {
		if rng.IntN(8) == 0 {
			table = tables[rng.IntN(len(tables))]
		}
		if rng.IntN(8) == 0 {
			chat = chats[rng.IntN(len(chats))]
		}
		if rng.IntN(4) == 0 { // an equal chat in another string
			chat = string([]byte(chat))
		}
		fs[i] = Final{Table: table, Chat: chat, Seq: rng.Uint64N(1 << 40), Value: rng.Uint64N(100), Missing: rng.IntN(5) == 0,
			MessageID: fmt.Sprintf("msg_%d", rng.IntN(1000)), Key: fmt.Sprintf("w%d-m%d", rng.IntN(8), rng.IntN(1000)),
			Partition: int32(rng.IntN(3)), Offset: rng.Int64N(1000)}
		if rng.IntN(10) == 0 {
			fs[i].Key = "k\n\x01é"
		}
		if rng.IntN(3) > 0 {
			fs[i].Sender = fmt.Sprintf("user-%d", rng.IntN(8))
		}
	}
	return fs
}

// Encoding a run's table and chat once gives the bytes and the plainness
// that encoding every line whole does.
func TestFinalPrefixesEncodeAsEachLineWhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for round := range 200 {
		fs := randomFinals(rng, 1+rng.IntN(300))
		var want, got []byte
		wantPlain, gotPlain := true, true
		var c finalPrefixes
		for i := range fs {
			var p bool
			want, p = appendFinal(want, &fs[i])
			wantPlain = wantPlain && p
			got, p = c.appendFinal(got, &fs[i])
			gotPlain = gotPlain && p
		}
		if !bytes.Equal(got, want) || gotPlain != wantPlain {
			t.Fatalf("round %d: with prefixes (plain %v):\n%s\nwhole (plain %v):\n%s", round, gotPlain, got, wantPlain, want)
		}
	}
}

// BenchmarkEncodeFinals encodes a batch of a final state's lines, each
// line whole and with each run's table and chat encoded once.
func BenchmarkEncodeFinals(b *testing.B) {
	fs := make([]Final, 4096)
	for i := range fs {
		table := TableMessages
		if i >= len(fs)/2 {
			table = TableIdempotency
		}
		fs[i] = Final{Table: table, Chat: "chat-0063", Seq: uint64(70000 + i%2048), MessageID: fmt.Sprintf("msg_01M8CKC0R1Q2P0CET0X2B%05d", i),
			Key: fmt.Sprintf("w%d-m%d", i%8, 600000+i), Sender: fmt.Sprintf("user-%d", i%8)}
	}
	buf := make([]byte, 0, 1<<20)
	b.Run("each line whole", func(b *testing.B) {
		for b.Loop() {
			buf = buf[:0]
			for i := range fs {
				buf, _ = appendFinal(buf, &fs[i])
			}
		}
	})
	b.Run("prefix once a run", func(b *testing.B) {
		for b.Loop() {
			buf = buf[:0]
			var c finalPrefixes
			for i := range fs {
				buf, _ = c.appendFinal(buf, &fs[i])
			}
		}
	})
}
