package history

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// heldWriter holds every write after the first (the header) until
// released, telling writing when one starts.
type heldWriter struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	writes  int
	writing chan struct{}
	release chan struct{}
}

func (w *heldWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.writes++
	first := w.writes == 1
	w.mu.Unlock()
	if !first {
		select {
		case w.writing <- struct{}{}:
		default:
		}
		<-w.release
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// A writer whose shard passes recordShardLimit while a flush is under way
// (its write held up by the kernel) carries on rather than waiting for it,
// up to recordShardHardLimit; every line still reaches the file, in order.
func TestWriterCarriesOnPastTheLimitWhileAFlushWrites(t *testing.T) {
	w := &heldWriter{writing: make(chan struct{}, 1), release: make(chan struct{})}
	rec, err := NewRecorder(w, Header{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	rec.Record(&Event{Kind: KindInvoke, Process: 1, F: FPersist, Chat: "c", Key: "first"})
	go rec.Flush()
	<-w.writing // a flush holds the write lock, its write held up

	key := strings.Repeat("k", 1000)
	lines := 1
	done := make(chan struct{})
	go func() {
		defer close(done)
		for n := 0; n < recordShardLimit+recordShardSize; n += len(key) {
			rec.Record(&Event{Kind: KindInvoke, Process: 2, F: FPersist, Chat: "c", Key: key})
			rec.RecordAt(&Event{Kind: KindOK, Process: 2, F: FPersist, Seq: 1, MessageID: "m"}, rec.Now())
			lines += 2
		}
	}()
	select {
	case <-done:
	case <-time.After(time.Minute): // never, unless the writer waits for the held write
		close(w.release)
		t.Fatal("a writer past recordShardLimit waited for the flush under way")
	}
	close(w.release)
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	h, err := Read(bytes.NewReader(w.buf.Bytes()), "h.jsonl")
	if err != nil || len(h.Events) != lines {
		t.Fatalf("read back %d events (%v), want %d", len(h.Events), err, lines)
	}
}
