package history

import (
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"
)

// An end recorded at a time read earlier keeps that time, unless a line
// that comes before it in the file is later: then it takes that time, both
// against its own shard's last line and against what a flush already wrote.
func TestRecordAtWritesTheEndItWasGivenUnlessThatBreaksTimeOrder(t *testing.T) {
	var out lockedBuffer
	rec, err := NewRecorder(&out, Header{Scenario: "record-at"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	invoke := func(process int, key string) int64 {
		return rec.Record(&Event{Kind: KindInvoke, Process: process, F: FPersist, Chat: "c", Key: key})
	}
	okAt := func(process int, key string, end int64) int64 {
		return rec.RecordAt(&Event{Kind: KindOK, Process: process, F: FPersist, Chat: "c", Key: key, Seq: 1, MessageID: key}, end)
	}

	sent := invoke(1, "a")
	end := rec.Now()
	time.Sleep(time.Millisecond) // the line is written well after the call ended
	if got := okAt(1, "a", end); got != end {
		t.Fatalf("the ok was recorded at %d, not at its end %d", got, end)
	}
	if end <= sent {
		t.Fatalf("end %d is not after the invoke %d", end, sent)
	}

	// Process 17 shares process 1's shard: its invoke is stamped after
	// process 1's next end was read, so that end moves up to it.
	invoke(1, "c")
	early := rec.Now()
	later := invoke(17, "b")
	if got := okAt(1, "c", early); got != later {
		t.Fatalf("an end read before a line of its shard was recorded at %d, want that line's %d", got, later)
	}

	// A flush writes a line of process 2; an end of process 3 (another
	// shard) read before it must not go into the file before it.
	invoke(3, "e")
	early = rec.Now()
	flushed := invoke(2, "d")
	if err := rec.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := okAt(3, "e", early); got != flushed {
		t.Fatalf("an end read before a flushed line was recorded at %d, want the flushed %d", got, flushed)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	h := mustRead(t, out.String()) // fails on a line earlier than the one before
	if len(h.Events) != 8 {
		t.Fatalf("%d events, want 8", len(h.Events))
	}
}

// Many goroutines, sharing shards (process ids collide modulo the shard
// count), record invokes with Record and ends with RecordAt at times read a
// little earlier, while a 1 ms flusher runs: the file reads back in time
// order, and every end lies between the time given and the next invoke.
func TestRecordAtKeepsTheFileInTimeOrderUnderConcurrency(t *testing.T) {
	const goroutines, opsEach = 24, 1500
	var out lockedBuffer
	rec, err := NewRecorder(&out, Header{Scenario: "record-at-race"}, time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	type bounds struct{ given, next int64 }
	seen := make([][]bounds, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range opsEach {
				key := "k" + strconv.Itoa(g) + "-" + strconv.Itoa(i)
				start := rec.Record(&Event{Kind: KindInvoke, Process: g, F: FPersist, Chat: "c", Key: key})
				end := rec.Now()
				if i%3 == 0 {
					runtime.Gosched() // let other lines in between
				}
				rec.RecordAt(&Event{Kind: KindTrace, Process: g, F: FAllocate, Chat: "c", Seq: uint64(i + 1), Start: start, HasStart: true}, end)
				got := rec.RecordAt(&Event{Kind: KindOK, Process: g, F: FPersist, Chat: "c", Key: key, Seq: uint64(i + 1), MessageID: key}, end)
				if got < end {
					t.Errorf("an end moved earlier: %d < %d", got, end)
				}
				seen[g] = append(seen[g], bounds{given: end, next: rec.Now()})
			}
		})
	}
	wg.Wait()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	h := mustRead(t, out.String()) // fails on a line earlier than the one before
	okIndex := make([]int, goroutines)
	for _, e := range h.Events {
		if e.Kind != KindOK {
			continue
		}
		b := seen[e.Process][okIndex[e.Process]]
		okIndex[e.Process]++
		if e.Time < b.given || e.Time > b.next {
			t.Fatalf("line %d: ok at %d, outside [%d, %d]: the time given and the moment after the call", e.Line, e.Time, b.given, b.next)
		}
	}
}
