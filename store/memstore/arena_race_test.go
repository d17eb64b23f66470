package memstore

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/chatseq/chatseq/store"
)

// Messages read while other goroutines keep writing to the same chat (and
// so appending to the chunk the read strings point into) read back whole
// and unchanged, also under the race detector.
func TestReadsWhileWritingTheSameArena(t *testing.T) {
	ctx := context.Background()
	s := New()
	if err := s.CreateChat(ctx, "c", []string{"u"}); err != nil {
		t.Fatal(err)
	}
	const writers, perWriter = 4, 2000
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				seq, err := s.IncrementCounter(ctx, "c")
				if err != nil {
					t.Error(err)
					return
				}
				key := fmt.Sprintf("w%d-m%d", w, i)
				msg := store.Message{Chat: "c", Seq: seq, MessageID: "msg-" + key, Sender: "u", Key: key, Content: "content of " + key, CreatedAt: time.Unix(0, int64(seq))}
				rec := store.IdempotencyRecord{Chat: "c", Key: key, Seq: seq, MessageID: msg.MessageID, Sender: "u", PayloadHash: "h" + key}
				if err := s.TransactWrite(ctx, []store.TxItem{{PutIdempotency: &rec, Condition: store.IfAbsent}, {PutMessage: &msg}}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	var seen [][]store.Message
	done := make(chan struct{})
	wg.Go(func() {
		defer close(done)
		for range 200 {
			msgs, err := s.QueryMessages(ctx, store.Query{Chat: "c", Limit: 50, Descending: true})
			if err != nil {
				t.Error(err)
				return
			}
			seen = append(seen, msgs)
		}
	})
	wg.Wait()
	<-done
	for _, msgs := range seen {
		for _, m := range msgs {
			if m.MessageID != "msg-"+m.Key || m.Content != "content of "+m.Key || m.Sender != "u" {
				t.Fatalf("seq %d read back as %+v", m.Seq, m)
			}
			r, ok, err := s.GetIdempotency(ctx, "c", m.Key, true)
			if err != nil || !ok || r.Seq != m.Seq || r.PayloadHash != "h"+m.Key {
				t.Fatalf("key %s: record %+v (found %v, %v), want seq %d", m.Key, r, ok, err, m.Seq)
			}
		}
	}
}
