package history

import (
	"bytes"
	"strconv"
	"testing"
)

// A shard's tap lines get room for a shard's worth at once, and a flush
// hands the shard back a buffer with that room: grown by append as they
// came (from nothing, or from a spare a smaller flush had used), they
// were a thousand growths of a 1M-persist run, each copying the lines
// and faulting in fresh memory.
func TestTapLinesAreNotGrownLineByLine(t *testing.T) {
	tp := NewTap("h.jsonl", &discardSink{})
	rec, err := NewTappedRecorder(&bytes.Buffer{}, Header{}, 0, tp)
	if err != nil {
		t.Fatal(err)
	}
	sh := &rec.shards[1]
	capNow := func() int {
		sh.mu.Lock()
		defer sh.mu.Unlock()
		return cap(sh.taps)
	}
	// Fewer lines a flush than a shard holds before it wakes the flusher
	// (a line here is under 110 bytes), so only these flushes take them.
	const perFlush, flushes = tapLinesAhead / 2, 8
	regrown, made := 0, 0
	record := func(e *Event) {
		before := capNow()
		rec.Record(e)
		switch after := capNow(); {
		case after == before:
		case before == 0:
			made++
		default:
			regrown++
		}
	}
	seq := uint64(0)
	for range flushes {
		for range perFlush / 2 {
			seq++
			key := "k" + strconv.FormatUint(seq, 10)
			record(&Event{Kind: KindInvoke, Process: 1, F: FPersist, Chat: "c", Key: key, Sender: "u"})
			record(&Event{Kind: KindOK, Process: 1, F: FPersist, Chat: "c", Key: key, Seq: seq, MessageID: "m" + key})
		}
		rec.flush()
	}
	rec.End()
	if _, err := tp.Wait(); err != nil {
		t.Fatal(err)
	}
	if regrown > 0 {
		t.Fatalf("the shard's tap lines were regrown %d times over %d flushes of %d lines", regrown, flushes, perFlush)
	}
	if made > 2 {
		t.Fatalf("the shard made a tap buffer %d times over %d flushes: flushes should hand back one with room", made, flushes)
	}
}
