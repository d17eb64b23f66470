package history

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
)

// Batches of finals recorded from several goroutines at once all reach the
// file, each batch's lines in their order, every one after the operations.
func TestRecordFinalsFromSeveralGoroutines(t *testing.T) {
	var out bytes.Buffer
	rec := recorderAfterOnePersist(t, &out, 1)
	const goroutines, batches, size = 3, 20, 500 // batches large enough to flush mid-way
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for b := range batches {
				fs := make([]Final, size)
				for i := range fs {
					fs[i] = Final{Table: TableMessages, Chat: fmt.Sprintf("g%d", g), Seq: uint64(b*size + i + 1), MessageID: "m", Key: fmt.Sprintf("k%d", b*size+i)}
				}
				rec.RecordFinals(fs)
			}
		})
	}
	rec.RecordFinals(nil) // nothing, and no empty line
	wg.Wait()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	h, err := Read(&out, "finals.jsonl")
	if err != nil {
		t.Fatalf("the file does not read back: %v", err)
	}
	if len(h.Events) != 2 || len(h.Finals) != goroutines*batches*size {
		t.Fatalf("read %d events and %d finals, want 2 and %d", len(h.Events), len(h.Finals), goroutines*batches*size)
	}
	next := map[string]uint64{}
	for _, f := range h.Finals {
		if f.Line <= h.Events[1].Line {
			t.Fatalf("final at line %d precedes the operations", f.Line)
		}
		if want := next[f.Chat] + 1; f.Seq != want {
			t.Fatalf("%s: seq %d follows %d: a goroutine's batches lost their order", f.Chat, f.Seq, next[f.Chat])
		}
		next[f.Chat] = f.Seq
	}
}

// A batch is written straight to the file, yet after every line recorded
// before it: operations, and a final recorded one at a time (which waits
// in a buffer) all precede it.
func TestRecordFinalsComeAfterEverythingBuffered(t *testing.T) {
	var out bytes.Buffer
	rec := recorderAfterOnePersist(t, &out, 3)
	rec.RecordFinal(Final{Table: TableCounters, Chat: "c", Value: 1})
	rec.RecordFinals([]Final{{Table: TableMessages, Chat: "c", Seq: 1, MessageID: "m", Key: "k"}})
	rec.RecordFinal(Final{Table: TableIdempotency, Chat: "c", Seq: 1, MessageID: "m", Key: "k"})
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	h, err := Read(&out, "order.jsonl")
	if err != nil {
		t.Fatalf("the file does not read back: %v", err)
	}
	var tables []string
	for _, f := range h.Finals {
		tables = append(tables, f.Table)
	}
	if len(h.Events) != 2 || fmt.Sprint(tables) != fmt.Sprint([]string{TableCounters, TableMessages, TableIdempotency}) {
		t.Fatalf("%d events, finals in the order %v: want 2, then counters, messages, idempotency", len(h.Events), tables)
	}
}

// recorderAfterOnePersist is a recorder writing to out (no periodic flush)
// that has recorded one persist by process: its invoke and its ok.
func recorderAfterOnePersist(t *testing.T, out *bytes.Buffer, process int) *Recorder {
	t.Helper()
	rec, err := NewRecorder(out, Header{Target: "test"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	rec.Record(&Event{Kind: KindInvoke, Process: process, F: FPersist, Chat: "c", Key: "k", Sender: "u"})
	rec.Record(&Event{Kind: KindOK, Process: process, F: FPersist, Chat: "c", Key: "k", Seq: 1, MessageID: "m"})
	return rec
}
