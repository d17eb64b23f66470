package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

func TestRecorderWritesExactLines(t *testing.T) {
	var out bytes.Buffer
	rec, err := NewRecorder(&out, Header{
		Contract: Contract{Gaps: GapsForbidden, Events: EventsNone},
		Target:   "dynamodb",
		Scenario: "retry-storm",
		Seed:     -7,
		HasSeed:  true,
		Extra:    map[string]string{"zone": `"eu-west-1a"`, "build": `{"rev":"abc","dirty":false}`},
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	events := []Event{
		{Kind: KindInvoke, Process: 3, F: FPersist, Chat: "c1", Key: "k", Sender: "u1", PayloadHash: "ab12"},
		{Kind: KindTrace, Process: 3, F: FAllocate, Chat: "c1", Seq: 7},
		{Kind: KindTrace, Process: 3, F: FAllocate, Chat: "c1", Seq: 8, Start: 0, HasStart: true},
		{Kind: KindOK, Process: 3, F: FPersist, Chat: "c1", Key: "k", Seq: 8, MessageID: "m8", Dedup: true},
		{Kind: KindInvoke, Process: 3, F: FPersist, Chat: "c1", Key: "k2"},
		{Kind: KindInfo, Process: 3, F: FPersist, Error: "timeout"},
		{Kind: KindInvoke, Process: 4, F: FSync, Chat: "c1", After: 5, Limit: 100},
		{Kind: KindOK, Process: 4, F: FSync, Chat: "c1", Sync: &SyncResult{Seqs: []uint64{6, 8}, MessageIDs: []string{"m6", "m8"}}},
		{Kind: KindInvoke, Process: 4, F: FSync, Chat: "c1", After: 8, Limit: 100},
		{Kind: KindOK, Process: 4, F: FSync, Chat: "c1"},
		{Kind: KindInvoke, Process: 4, F: FSync, Chat: "c1", After: 8, Limit: 100},
		{Kind: KindFail, Process: 4, F: FSync, Chat: "c1", Error: "not_a_member"},
	}
	var times []int64
	for i := range events {
		times = append(times, rec.Record(&events[i]))
		if events[i].Time != times[i] {
			t.Fatalf("Record returned %d but stamped %d", times[i], events[i].Time)
		}
	}
	rec.RecordFinal(Final{Table: TableCounters, Chat: "c1", Value: 8})
	rec.RecordFinal(Final{Table: TableCounters, Chat: "c2", Missing: true, Value: 3})
	rec.RecordFinal(Final{Table: TableMessages, Chat: "c1", Seq: 8, MessageID: "m8", Key: "k"})
	rec.RecordFinal(Final{Table: TableIdempotency, Chat: "c1", Key: "k", Seq: 8, MessageID: "m8"})
	rec.RecordFinal(Final{Table: TableEvents, Chat: "c1", Seq: 8, MessageID: "m8", Partition: 2, Offset: 41})
	if err := rec.End(); err != nil {
		t.Fatal(err)
	}
	at := func(i int) string { return strconv.FormatInt(times[i], 10) }
	want := lines(
		`{"format":"chatseq-history","version":1,"end_line":true,"contract":{"gaps":"forbidden","events":"none"},"target":"dynamodb","scenario":"retry-storm","seed":-7,"build":{"rev":"abc","dirty":false},"zone":"eu-west-1a"}`,
		`{"type":"invoke","process":3,"f":"persist","time":`+at(0)+`,"chat":"c1","key":"k","sender":"u1","payload_hash":"ab12"}`,
		`{"type":"trace","process":3,"f":"allocate","time":`+at(1)+`,"chat":"c1","seq":7}`,
		`{"type":"trace","process":3,"f":"allocate","time":`+at(2)+`,"chat":"c1","seq":8,"start":0}`,
		`{"type":"ok","process":3,"f":"persist","time":`+at(3)+`,"chat":"c1","key":"k","seq":8,"message_id":"m8","dedup":true}`,
		`{"type":"invoke","process":3,"f":"persist","time":`+at(4)+`,"chat":"c1","key":"k2"}`,
		`{"type":"info","process":3,"f":"persist","time":`+at(5)+`,"error":"timeout"}`,
		`{"type":"invoke","process":4,"f":"sync","time":`+at(6)+`,"chat":"c1","after":5,"limit":100}`,
		`{"type":"ok","process":4,"f":"sync","time":`+at(7)+`,"chat":"c1","seqs":[6,8],"message_ids":["m6","m8"]}`,
		`{"type":"invoke","process":4,"f":"sync","time":`+at(8)+`,"chat":"c1","after":8,"limit":100}`,
		`{"type":"ok","process":4,"f":"sync","time":`+at(9)+`,"chat":"c1","seqs":[],"message_ids":[]}`,
		`{"type":"invoke","process":4,"f":"sync","time":`+at(10)+`,"chat":"c1","after":8,"limit":100}`,
		`{"type":"fail","process":4,"f":"sync","time":`+at(11)+`,"chat":"c1","error":"not_a_member"}`,
		`{"type":"final","table":"counters","chat":"c1","value":8}`,
		`{"type":"final","table":"counters","chat":"c2","missing":true}`,
		`{"type":"final","table":"messages","chat":"c1","seq":8,"message_id":"m8","key":"k"}`,
		`{"type":"final","table":"idempotency","chat":"c1","seq":8,"message_id":"m8","key":"k"}`,
		`{"type":"final","table":"events","chat":"c1","seq":8,"message_id":"m8","partition":2,"offset":41}`,
		`{"type":"end"}`,
	)
	if got := out.String(); got != want {
		t.Errorf("recorded:\n%s\nwant:\n%s", got, want)
	}
	h := mustRead(t, out.String())
	if len(h.Warnings) != 0 || len(h.Events) != len(events) || h.Events[5].Chat != "c1" || h.Events[5].Key != "k2" || h.End != 19 || h.CutShort() {
		t.Errorf("read back: %+v", h)
	}
}

// oddStrings exercise escaping: quotes, backslashes, every control byte,
// characters that JavaScript or line splitters treat specially, and
// multi-byte text.
var oddStrings = []string{
	"", `"`, `\`, `\"`, `"\\"`, "a\"b\\c/d", "\x00\x01\x1f\x7f", "\b\f\n\r\t",
	"line\u2028sep\u2029para\u0085nel", "héllo wörld", "日本語", "emoji 😀🎉", "\ufffd",
	"<script>&amp;</script>", strings.Repeat("long-", 10000),
	func() string {
		var b strings.Builder
		for c := range 0x20 {
			b.WriteByte(byte(c))
		}
		return b.String()
	}(),
}

// TestRecorderRoundTrip: whatever the recorder writes, Read returns equal.
func TestRecorderRoundTrip(t *testing.T) {
	var out bytes.Buffer
	extra := map[string]string{}
	for i, s := range oddStrings {
		name := "x" + strconv.Itoa(i) + s
		if isHeaderField(name) {
			continue
		}
		extra[name] = string(appendString(nil, s))
	}
	header := Header{Version: 1, Target: oddStrings[5], Scenario: oddStrings[8], Seed: 1 << 62, HasSeed: true, EndLine: true, Extra: extra}
	rec, err := NewRecorder(&out, header, 0)
	if err != nil {
		t.Fatal(err)
	}
	var recorded []Event
	record := func(e Event) {
		rec.Record(&e)
		recorded = append(recorded, e)
	}
	for i, s := range oddStrings {
		p := i % 3
		chat := "chat " + s
		key := s
		if key == "" {
			key = "k" // an empty key is refused (FORMAT.md)
		}
		switch i % 4 {
		case 0:
			record(Event{Kind: KindInvoke, Process: p, F: FPersist, Chat: chat, Key: key, Sender: s + "!", PayloadHash: s})
			record(Event{Kind: KindTrace, Process: p, F: FAllocate, Chat: chat, Seq: uint64(i) << 40, Start: -1, HasStart: true})
			record(Event{Kind: KindOK, Process: p, F: FPersist, Chat: chat, Key: key, Seq: 1<<64 - 1, MessageID: "m" + s, Dedup: i%2 == 0})
		case 1:
			record(Event{Kind: KindInvoke, Process: p, F: FPersist, Chat: chat, Key: key})
			record(Event{Kind: KindFail, Process: p, F: FPersist, Chat: chat, Key: key, Error: s})
		case 2:
			record(Event{Kind: KindInvoke, Process: p, F: FSync, Chat: chat, After: uint64(i), Limit: i})
			record(Event{Kind: KindOK, Process: p, F: FSync, Chat: chat, Sync: &SyncResult{Seqs: []uint64{0, 1, 1 << 63}, MessageIDs: []string{"m" + s, "n", "m" + s}}})
		case 3:
			record(Event{Kind: KindInvoke, Process: p, F: FSync, Chat: chat, After: 0, Limit: 0})
			record(Event{Kind: KindInfo, Process: p, F: FSync, Chat: chat, Error: s})
		}
	}
	var finals []Final
	for i, s := range oddStrings {
		f := []Final{
			{Table: TableCounters, Chat: s, Value: uint64(i)},
			{Table: TableCounters, Chat: s, Missing: true},
			{Table: TableMessages, Chat: s, Seq: uint64(i), MessageID: "m" + s, Key: s},
			{Table: TableIdempotency, Chat: s, Key: s, Seq: uint64(i), MessageID: "m" + s},
			{Table: TableEvents, Chat: s, Seq: uint64(i), MessageID: "m" + s, Partition: 1<<31 - 1, Offset: 1<<63 - 1},
		}[i%5]
		rec.RecordFinal(f)
		finals = append(finals, f)
	}
	if err := rec.End(); err != nil {
		t.Fatal(err)
	}
	if !utf8.Valid(out.Bytes()) {
		t.Fatal("recorded file is not valid UTF-8")
	}
	h := mustRead(t, out.String())
	if len(h.Warnings) != 0 {
		t.Errorf("warnings: %+v", h.Warnings)
	}
	sameContent(t, h, &History{Header: header, Events: recorded, Finals: finals})
}

func TestAppendStringAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range append(oddStrings, "\xff", "a\xc3", "\xed\xa0\x80") {
		encoded := appendString(nil, s)
		var decoded string
		if err := json.Unmarshal(encoded, &decoded); err != nil {
			t.Fatalf("%q encodes as invalid JSON %s: %v", s, encoded, err)
		}
		// Each invalid byte becomes U+FFFD, as converting to runes does.
		if want := string([]rune(s)); decoded != want {
			t.Errorf("%q: encoding/json decodes %s as %q, want %q", s, encoded, decoded, want)
		}
		if bytes.ContainsAny(encoded, "\n\r\u2028\u2029\u0085") {
			t.Errorf("%q: encoded form %q holds a line break", s, encoded)
		}
	}
}

func TestRecorderConcurrent(t *testing.T) {
	const goroutines, opsEach = 16, 2000
	var out lockedBuffer
	rec, err := NewRecorder(&out, Header{Scenario: "race"}, time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range opsEach {
				key := "k" + strconv.Itoa(g) + "-" + strconv.Itoa(i)
				inv := Event{Kind: KindInvoke, Process: g, F: FPersist, Chat: "c", Key: key}
				start := rec.Record(&inv)
				tr := Event{Kind: KindTrace, Process: g, F: FAllocate, Chat: "c", Seq: uint64(i + 1), Start: start, HasStart: true}
				rec.Record(&tr)
				ok := Event{Kind: KindOK, Process: g, F: FPersist, Chat: "c", Key: key, Seq: uint64(i + 1), MessageID: key}
				if rec.Record(&ok) < start {
					t.Errorf("time went back")
				}
			}
		})
	}
	wg.Wait()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	h := mustRead(t, out.String())
	if len(h.Events) != goroutines*opsEach*3 {
		t.Fatalf("%d events, want %d", len(h.Events), goroutines*opsEach*3)
	}
	perProcess := make([]int, goroutines)
	for i, e := range h.Events {
		if i > 0 && e.Time < h.Events[i-1].Time {
			t.Fatalf("line %d: time %d before %d", e.Line, e.Time, h.Events[i-1].Time)
		}
		if e.Kind == KindOK {
			if want := uint64(perProcess[e.Process] + 1); e.Seq != want {
				t.Fatalf("process %d: ok seq %d, want %d (lines out of order)", e.Process, e.Seq, want)
			}
			perProcess[e.Process]++
		}
	}
}

// lockedBuffer is a bytes.Buffer that a test can read while the recorder's
// flusher writes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *lockedBuffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Len()
}

func TestRecorderFlushesInTheBackground(t *testing.T) {
	var out lockedBuffer
	rec, err := NewRecorder(&out, Header{}, 5*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	headerLen := out.Len()
	if headerLen == 0 {
		t.Fatal("header not written at once")
	}
	rec.Record(&Event{Kind: KindInvoke, Process: 1, F: FPersist, Chat: "c", Key: "k"})
	deadline := time.Now().Add(5 * time.Second)
	for out.Len() == headerLen {
		if time.Now().After(deadline) {
			t.Fatal("the flusher never wrote the event")
		}
		time.Sleep(time.Millisecond)
	}
	if h := mustRead(t, out.String()); len(h.Events) != 1 {
		t.Fatalf("%+v", h.Events)
	}
}

func TestRecorderWritesWhenBufferFills(t *testing.T) {
	var out lockedBuffer
	rec, err := NewRecorder(&out, Header{}, 0) // no periodic flush
	if err != nil {
		t.Fatal(err)
	}
	headerLen := out.Len()
	key := strings.Repeat("k", 1000)
	for pairs := 0; pairs < recordShardSize/1000+2; pairs++ { // each pair is over 1000 bytes
		rec.Record(&Event{Kind: KindInvoke, Process: 1, F: FPersist, Chat: "c", Key: key})
		rec.Record(&Event{Kind: KindFail, Process: 1, F: FPersist})
	}
	// Without Flush, the full shard wakes the flusher, which writes whole
	// lines, at least a shard's worth.
	deadline := time.Now().Add(5 * time.Second)
	for out.Len() == headerLen {
		if time.Now().After(deadline) {
			t.Fatal("nothing written although a shard overflowed")
		}
		time.Sleep(time.Millisecond)
	}
	written := out.String()
	if !strings.HasSuffix(written, "\n") || len(written)-headerLen < recordShardSize {
		t.Fatalf("wrote %d bytes, ending %q", len(written), written[max(0, len(written)-20):])
	}
	mustRead(t, written)
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
}

type failingWriter struct {
	writes int
	after  int
}

func (w *failingWriter) Write(p []byte) (int, error) {
	w.writes++
	if w.writes > w.after {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

func TestRecorderErrorsAreSticky(t *testing.T) {
	w := &failingWriter{after: 1} // the header succeeds
	rec, err := NewRecorder(w, Header{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	rec.Record(&Event{Kind: KindInvoke, Process: 1, F: FPersist, Chat: "c", Key: "k"})
	if err := rec.Flush(); err == nil || err.Error() != "disk full" {
		t.Fatalf("Flush: %v", err)
	}
	rec.Record(&Event{Kind: KindFail, Process: 1, F: FPersist})
	if err := rec.Close(); err == nil || err.Error() != "disk full" {
		t.Fatalf("Close: %v", err)
	}
	if w.writes != 2 {
		t.Errorf("%d writes; after the first error nothing more should be written", w.writes)
	}
	if _, err := NewRecorder(&failingWriter{}, Header{}, 0); err == nil {
		t.Error("NewRecorder hid the header's write error")
	}
}

func TestRecorderRejectsBadHeaders(t *testing.T) {
	for _, tt := range []struct {
		name string
		h    Header
		msg  string
	}{
		{"version", Header{Version: 2}, "version 2"},
		{"gaps", Header{Contract: Contract{Gaps: "maybe"}}, `contract gaps must be "allowed" or "forbidden", got "maybe"`},
		{"key_reuse", Header{Contract: Contract{KeyReuse: "ignore"}}, `contract key_reuse`},
		{"events", Header{Contract: Contract{Events: "exactly-once"}}, `contract events`},
		{"shadowing extra", Header{Extra: map[string]string{"seed": "1"}}, `extra field "seed" would shadow`},
		{"extra not JSON", Header{Extra: map[string]string{"x": "hello"}}, `extra field "x" is not one JSON value`},
		{"extra empty", Header{Extra: map[string]string{"x": ""}}, `extra field "x"`},
		{"extra two values", Header{Extra: map[string]string{"x": "1 2"}}, `extra field "x"`},
		{"extra padded", Header{Extra: map[string]string{"x": " 1"}}, `extra field "x"`},
		{"extra multi-line", Header{Extra: map[string]string{"x": "[1,\n2]"}}, `extra field "x"`},
		{"initial_counter negative", Header{Extra: map[string]string{"initial_counter": "-5"}}, `"initial_counter" must be a non-negative integer`},
		{"initial_counter fraction", Header{Extra: map[string]string{"initial_counter": "1.5"}}, `"initial_counter" must be a non-negative integer`},
		{"initial_counter string", Header{Extra: map[string]string{"initial_counter": `"7"`}}, `"initial_counter" must be a non-negative integer`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			_, err := NewRecorder(&out, tt.h, 0)
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("got %v, want an error containing %q", err, tt.msg)
			}
			if out.Len() != 0 {
				t.Errorf("wrote %q despite the error", out.String())
			}
		})
	}
}

func TestRecorderNowIsMonotonic(t *testing.T) {
	rec, err := NewRecorder(&bytes.Buffer{}, Header{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	a := rec.Now()
	time.Sleep(time.Millisecond)
	b := rec.Now()
	if a < 0 || b-a < int64(time.Millisecond) {
		t.Errorf("Now went %d then %d", a, b)
	}
}

func TestRecordDoesNotAllocate(t *testing.T) {
	rec, err := NewRecorder(&bytes.Buffer{}, Header{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	e := Event{Kind: KindOK, Process: 1, F: FPersist, Chat: "c", Key: "k", Seq: 1, MessageID: "m"}
	rec.Record(&e) // warm up
	if n := testing.AllocsPerRun(1000, func() { rec.Record(&e) }); n != 0 {
		t.Errorf("Record allocates %.1f times per call", n)
	}
}

// blockingWriter holds every write until released.
type blockingWriter struct {
	lockedBuffer
	release chan struct{}
	writing chan struct{} // a write has started
}

func (w *blockingWriter) Write(p []byte) (int, error) {
	select {
	case w.writing <- struct{}{}:
	default:
	}
	<-w.release
	return w.lockedBuffer.Write(p)
}

// A line that fills a shard wakes the flusher and returns: recording goes
// on while the file write is stuck, until the flusher is far behind, and
// every line reaches the file in order once the write completes.
func TestRecordDoesNotWaitForTheFile(t *testing.T) {
	w := &blockingWriter{release: make(chan struct{}), writing: make(chan struct{}, 1)}
	close(w.release) // the header goes through
	rec, err := NewRecorder(w, Header{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	<-w.writing // the header's write; the next signal must be the flusher's
	w.release = make(chan struct{})
	key := strings.Repeat("k", 200)
	lines := 0
	record := func(n int) { // n pairs of about 240 bytes
		for range n {
			rec.Record(&Event{Kind: KindInvoke, Process: 1, F: FPersist, Chat: "c", Key: key})
			rec.Record(&Event{Kind: KindFail, Process: 1, F: FPersist})
			lines += 2
		}
	}
	// Past a shard's size the flusher wakes and gets stuck in Write;
	// recording goes on up to the limit without waiting for it.
	filled, done := make(chan struct{}), make(chan struct{})
	go func() {
		record(recordShardSize/200 + 10)
		close(filled)
		<-w.writing
		record(recordShardLimit / 200) // past the limit, short of the hard limit
		close(done)
	}()
	for _, step := range []struct {
		ch   chan struct{}
		what string
	}{{filled, "filling a shard"}, {done, "recording while the write is stuck"}} {
		select {
		case <-step.ch:
		case <-time.After(10 * time.Second):
			close(w.release) // let the test end
			t.Fatalf("%s waited for the file", step.what)
		}
	}
	close(w.release)
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	h := mustRead(t, w.String())
	if len(h.Events) != lines {
		t.Fatalf("%d events in the file, %d recorded", len(h.Events), lines)
	}
}
