package history

import (
	"runtime"
	"strings"
	"sync"
	"testing"
)

// hookedWriter counts writes and calls onWrite (once) inside the first
// write after the header.
type hookedWriter struct {
	lockedBuffer
	mu      sync.Mutex
	writes  int
	onWrite func()
}

func (w *hookedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.writes++
	hook := w.onWrite
	if w.writes == 2 {
		w.onWrite = nil
	} else {
		hook = nil
	}
	w.mu.Unlock()
	if hook != nil {
		hook()
	}
	return w.lockedBuffer.Write(p)
}

func (w *hookedWriter) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writes
}

// A kick sent by a full shard that a flush then takes is stale once that
// flush is done: the flusher must not flush again for it. (Writers fill
// shards one after another and kick again while a flush is about to take
// theirs; each stale kick made a flush of a few lines, nearly half of a
// run's flushes.)
func TestFlusherSkipsAKickWhoseShardWasFlushed(t *testing.T) {
	w := &hookedWriter{}
	rec, err := NewRecorder(w, Header{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	// A line recorded while the first flush writes: it is left for a later
	// flush, and must not make one of its own.
	w.onWrite = func() {
		rec.Record(&Event{Kind: KindInvoke, Process: 2, F: FPersist, Chat: "c", Key: "late"})
	}
	rec.writeMu.Lock() // the flusher waits to flush until released
	key := strings.Repeat("k", 1000)
	persist := func() {
		rec.Record(&Event{Kind: KindInvoke, Process: 1, F: FPersist, Chat: "c", Key: key})
		rec.RecordAt(&Event{Kind: KindOK, Process: 1, F: FPersist, Seq: 1, MessageID: "m"}, rec.Now())
	}
	for len(rec.shards[1].buf) < recordShardSize-4*len(key) {
		persist()
	}
	// One line fills the shard, so that it kicks once.
	rec.Record(&Event{Kind: KindInvoke, Process: 1, F: FPersist, Chat: "c", Key: "k"})
	rest := recordShardSize - len(rec.shards[1].buf)
	rec.RecordAt(&Event{Kind: KindOK, Process: 1, F: FPersist, Seq: 1, MessageID: strings.Repeat("m", rest)}, rec.Now())
	waitForKickTaken(rec)
	// The flusher took the kick and waits to flush; the shard, still
	// full, kicks again: the flush it waits for takes these lines too.
	persist()
	rec.writeMu.Unlock()
	waitForKickTaken(rec)
	rec.stopFlusher() // the flusher is done with the second kick
	if n := w.count(); n != 2 {
		t.Fatalf("%d writes before Close, want 2 (the header and the first shard's flush)", n)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	h, err := Read(strings.NewReader(w.String()), "h.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if last := h.Events[len(h.Events)-1]; last.Key != "late" {
		t.Fatalf("the last line is %+v, want the late one", last)
	}
}

// waitForKickTaken waits until the flusher has received the kick sent.
func waitForKickTaken(r *Recorder) {
	for len(r.kick) > 0 {
		runtime.Gosched()
	}
}
