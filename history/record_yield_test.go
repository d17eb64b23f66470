package history

import (
	"runtime"
	"strings"
	"testing"
)

// On one P busy with a writer that never blocks, a woken flusher would
// wait for a preemption; YieldToFlusher between operations lets it write
// the full shard at once, and afterwards no longer yields.
func TestYieldToFlusherLetsTheWokenFlusherWrite(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var out lockedBuffer
	rec, err := NewRecorder(&out, Header{}, 0) // no periodic flush
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	headerLen := out.Len()
	if rec.flushWanted.Load() {
		t.Fatal("a fresh recorder wants a flush")
	}
	key := strings.Repeat("k", 1000)
	for out.Len() == headerLen && !rec.flushWanted.Load() {
		rec.Record(&Event{Kind: KindInvoke, Process: 1, F: FPersist, Chat: "c", Key: key})
	}
	if out.Len() != headerLen {
		t.Fatal("the flusher ran before any yield: the test cannot tell what YieldToFlusher does")
	}
	rec.YieldToFlusher()
	if got := out.Len() - headerLen; got < recordShardSize {
		t.Fatalf("after one yield the flusher wrote %d bytes, want the full shard (%d or more)", got, recordShardSize)
	}
	if rec.flushWanted.Load() {
		t.Fatal("the flusher took the kick but a flush is still wanted: every writer would keep yielding")
	}
}
