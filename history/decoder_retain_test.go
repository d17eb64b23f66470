package history

import (
	"fmt"
	"testing"
	"unsafe"
)

// A decoder keeps no key beyond its arena's current block: runs give a
// crashed process a new id, and each old id's last key used to keep its
// whole block alive, so a long feed held every block it decoded. Keys of
// completed operations are let go at once.
func TestDecoderKeepsNoKeyOutsideItsCurrentBlock(t *testing.T) {
	d := newLineDecoder("h.jsonl", nil)
	var pl parsedLine
	line := 0
	parse := func(s string) {
		line++
		if err := d.parse([]byte(s), line, &pl); err != nil {
			t.Fatal(err)
		}
	}
	for p := range 20000 {
		key := fmt.Sprintf("writer-%d-message-%d-with-some-length", p, p)
		parse(fmt.Sprintf(`{"type":"invoke","process":%d,"f":"persist","time":%d,"chat":"c","key":%q}`, p, 2*p, key))
		if p%2 == 0 { // half complete, half never do (a crash: a new id next)
			parse(fmt.Sprintf(`{"type":"info","process":%d,"f":"persist","time":%d,"chat":"c","key":%q,"error":"crash"}`, p, 2*p+1, key))
		}
	}
	if d.arena.blocks < 3 {
		t.Fatalf("the test wants several arena blocks, got %d", d.arena.blocks)
	}
	kept := 0
	for p, k := range d.lastKey {
		if k == "" {
			continue
		}
		kept++
		if p%2 == 0 {
			t.Fatalf("process %d completed, and its key is still kept", p)
		}
	}
	// What is kept fits in the current block: these keys are ~40 bytes.
	if max := cap(d.arena.block) / 40; kept > max {
		t.Fatalf("%d keys kept, more than the current block holds (%d)", kept, max)
	}
}

type discardSink struct{ events int }

func (s *discardSink) Event(*Event) { s.events++ }
func (s *discardSink) Final(*Final) {}

// A builder handing lines to a sink keeps an invoke's copy only while the
// operation is outstanding: a slot per process id that ever ran held the
// strings (and their blocks) of every crashed process and duplicate twin of
// a long run.
func TestSinkBuilderReleasesCompletedInvokes(t *testing.T) {
	sink := &discardSink{}
	b := newBuilder(&History{File: "h.jsonl"}, sizeHint{bytes: -1})
	b.sink = sink
	d := newLineDecoder("h.jsonl", nil)
	line := 0
	add := func(s string) {
		line++
		var pl parsedLine
		if err := d.parse([]byte(s), line, &pl); err != nil {
			t.Fatal(err)
		}
		if err := b.add(&pl); err != nil {
			t.Fatal(err)
		}
	}
	const n = 5000
	for p := range n {
		add(fmt.Sprintf(`{"type":"invoke","process":%d,"f":"persist","time":%d,"chat":"c","key":"k%d"}`, p, 2*p, p))
		if p%2 == 0 { // a crash: the process runs on under a new id
			add(fmt.Sprintf(`{"type":"info","process":%d,"f":"persist","time":%d,"error":"crash"}`, p, 2*p+1))
		} else { // a duplicate twin: one operation under an id of its own
			add(fmt.Sprintf(`{"type":"ok","process":%d,"f":"persist","time":%d,"seq":%d,"message_id":"m%d"}`, p, 2*p+1, p, p))
		}
	}
	add(fmt.Sprintf(`{"type":"invoke","process":%d,"f":"persist","time":%d,"chat":"c","key":"open"}`, n, 2*n))
	kept := 0
	for _, e := range b.slots.dense {
		if e != nil {
			kept++
		}
	}
	if sink.events != 2*n+1 || kept != 1 {
		t.Fatalf("%d events to the sink, %d invoke copies kept; want %d and 1 (the open one)", sink.events, kept, 2*n+1)
	}
	for _, e := range b.slots.free {
		if e.Key != "" || e.Chat != "" {
			t.Fatalf("a free slot still holds the strings of line %d", e.Line)
		}
	}
}

// Values shared across lines (chat ids, senders, error codes) are held for
// the whole read, so none may live in the arena: each would keep its block,
// and a feed read while bench ran held a block for each chat.
func TestDecoderSharesNoValueFromItsArena(t *testing.T) {
	d := newLineDecoder("h.jsonl", nil)
	var pl parsedLine
	// The first byte of every block the arena made, and the block's size:
	// blocks grow to arenaMaxBlock, and a range of that size from a small
	// block's start took in the allocations after it (a shared value
	// there failed the test in 5 of 200 runs).
	blocks := map[*byte]int{}
	for p := range 20000 {
		s := fmt.Sprintf(`{"type":"invoke","process":%d,"f":"persist","time":%d,"chat":"chat-%d","sender":"user-%d","key":"writer-%d-message-%d-with-some-length"}`, p, p, p%64, p%8, p, p)
		if err := d.parse([]byte(s), p+1, &pl); err != nil {
			t.Fatal(err)
		}
		if cap(d.arena.block) > 0 {
			blocks[unsafe.SliceData(d.arena.block[:1])] = cap(d.arena.block)
		}
	}
	if len(blocks) < 3 {
		t.Fatalf("the test wants several arena blocks, got %d", len(blocks))
	}
	for _, v := range d.shared.shared {
		data := unsafe.StringData(v)
		for b, size := range blocks {
			start := uintptr(unsafe.Pointer(b))
			if p := uintptr(unsafe.Pointer(data)); p >= start && p < start+uintptr(size) {
				t.Fatalf("shared value %q lives in an arena block, and keeps it alive", v)
			}
		}
	}
}
