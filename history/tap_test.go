package history

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unsafe"
)

// hashSink is a collectSink that takes sync answers' ids as hashes.
type hashSink struct{ collectSink }

func (*hashSink) HashID(id []byte) uint64 {
	if len(id) == 0 {
		return 0 // IDHasher's contract
	}
	h := fnv.New64a()
	h.Write(id)
	return h.Sum64()
}

// tapStrings are values that a file holds otherwise than as given (invalid
// UTF-8 becomes U+FFFD) or only escaped.
var tapStrings = []string{"", "plain", "bad \xff utf8", "\xc3", `q"uote\back`, "tab\tnew\nline", "é 中 🙂", "\u2028\u0085", "\x00"}

// tapped records with record on a recorder tapped by a sink (hashing ids
// or not) and returns what the tap handed the sink and what Scan reads
// from the bytes written.
func tapped(t *testing.T, hashing bool, record func(*Recorder)) (tap, scan *collectSink, th, sh *History, terr, serr error) {
	t.Helper()
	var out bytes.Buffer
	var sink Sink
	var got *collectSink
	if hashing {
		hs := &hashSink{}
		sink, got = hs, &hs.collectSink
	} else {
		got = &collectSink{}
		sink = got
	}
	tp := NewTap("h.jsonl", sink)
	rec, err := NewTappedRecorder(&out, Header{Target: "test", Seed: 3, HasSeed: true, Extra: map[string]string{"x": `{"a":[1,2]}`}}, 0, tp)
	if err != nil {
		t.Fatal(err)
	}
	record(rec)
	rec.Close()
	th, terr = tp.Wait()
	var want Sink
	scan = &collectSink{}
	want = scan
	if hashing {
		hs := &hashSink{}
		want, scan = hs, &hs.collectSink
	}
	sh, serr = Scan(bytes.NewReader(out.Bytes()), "h.jsonl", want)
	return got, scan, th, sh, terr, serr
}

// sameAsScan fails t unless the tap and Scan agree on everything.
func sameAsScan(t *testing.T, name string, hashing bool, record func(*Recorder)) (*History, error) {
	t.Helper()
	tap, scan, th, sh, terr, serr := tapped(t, hashing, record)
	if fmt.Sprint(terr) != fmt.Sprint(serr) {
		t.Fatalf("%s: the tap's error %v, Scan's %v", name, terr, serr)
	}
	if !reflect.DeepEqual(th, sh) {
		t.Fatalf("%s: the tap's history\n%+v\nScan's\n%+v", name, th, sh)
	}
	if terr == nil && (!reflect.DeepEqual(tap.events, scan.events) || !reflect.DeepEqual(tap.finals, scan.finals)) {
		for i := range min(len(tap.events), len(scan.events)) {
			if !reflect.DeepEqual(tap.events[i], scan.events[i]) {
				t.Fatalf("%s: event %d: the tap's\n%+v\nScan's\n%+v", name, i, tap.events[i], scan.events[i])
			}
		}
		t.Fatalf("%s: the tap handed %d events and %d finals, Scan %d and %d", name, len(tap.events), len(tap.finals), len(scan.events), len(scan.finals))
	}
	return th, terr
}

// A tapped recorder's sink gets what Scan hands a sink reading the file
// the recorder wrote: the same events and finals, numbered alike, with
// the same header, warnings and end, strings that the file cannot hold as
// given included, whether the sink takes sync ids as hashes or not; and
// the same error for a history the reader refuses.
func TestTapHandsTheSinkWhatScanReads(t *testing.T) {
	workload := func(rec *Recorder) {
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Go(func() {
				for i := range 300 {
					s := tapStrings[(w+i)%len(tapStrings)]
					p := w*1000 + i/7 // a process id per few operations, as after info
					chat := fmt.Sprintf("c%d", i%3)
					if i%11 == 0 {
						chat = s
					}
					if i%5 == 4 {
						after := uint64(i)
						rec.Record(&Event{Kind: KindInvoke, Process: p, F: FSync, Chat: chat, After: after, Limit: i % 4, Reader: i%2 == 0, Sender: []string{"", s}[i%3%2]})
						var r *SyncResult
						switch i % 3 {
						case 1:
							r = &SyncResult{Seqs: []uint64{}, MessageIDs: []string{}}
						case 2:
							r = &SyncResult{Seqs: []uint64{after + 1, after + 2}, MessageIDs: []string{"m" + s, "n" + s}}
						}
						kind := []Kind{KindOK, KindOK, KindFail, KindInfo}[i%4]
						rec.RecordAt(&Event{Kind: kind, Process: p, F: FSync, Chat: []string{"", chat}[i%2], Sync: r, Error: s}, rec.Now())
						continue
					}
					key := fmt.Sprintf("k%d-%d%s", w, i, s)
					rec.Record(&Event{Kind: KindInvoke, Process: p, F: FPersist, Chat: chat, Key: key, Sender: s, PayloadHash: tapStrings[i%len(tapStrings)]})
					rec.RecordAt(&Event{Kind: KindTrace, Process: p, F: FAllocate, Chat: chat, Seq: uint64(i), Start: rec.Now(), HasStart: i%2 == 0}, rec.Now())
					ev := Event{Kind: []Kind{KindOK, KindFail, KindInfo}[i%3], Process: p, F: FPersist, Error: s, Seq: uint64(i), MessageID: "m" + s, Dedup: i%4 == 0}
					if i%2 == 0 {
						ev.Chat, ev.Key = chat, key
					}
					rec.RecordAt(&ev, rec.Now())
				}
			})
		}
		wg.Wait()
		// A process beyond 32 bits: its lines go to the tap whole.
		rec.Record(&Event{Kind: KindInvoke, Process: 1 << 40, F: FPersist, Chat: "c0", Key: "big", Sender: "s"})
		rec.RecordAt(&Event{Kind: KindOK, Process: 1 << 40, F: FPersist, Seq: 7, MessageID: "mbig"}, rec.Now())
		for i, s := range tapStrings {
			rec.RecordFinal(Final{Table: TableEvents, Chat: "c1", Seq: uint64(i), MessageID: "m" + s, Partition: int32(i), Offset: int64(i)})
		}
		var fs []Final
		for i, s := range tapStrings {
			fs = append(fs,
				Final{Table: TableMessages, Chat: s, Seq: uint64(i), MessageID: "m" + s, Key: "k" + s, Sender: s, PayloadHash: s},
				Final{Table: TableIdempotency, Chat: "c0", Seq: uint64(i), MessageID: "m" + s, Key: s, PayloadHash: "not written"},
				Final{Table: TableCounters, Chat: s, Value: uint64(i), Missing: i%2 == 0})
		}
		rec.RecordFinals(fs)
		// Counted before their lines are all written, and one that the
		// file does not hold: the tap counts as Scan does.
		if err := rec.RecordTableRead(TableCounters, len(tapStrings)+3000); err != nil {
			t.Fatal(err)
		}
		if err := rec.RecordTableRead(TableMessages, 0); err != nil {
			t.Fatal(err)
		}
		// Plain batches, handed over: the tap keeps them, and reads them
		// without checking their strings again.
		var plain []Final
		for i := range 3000 {
			c := fmt.Sprintf("p%d", i%5)
			plain = append(plain,
				Final{Table: TableMessages, Chat: c, Seq: uint64(i), MessageID: fmt.Sprintf("m%d", i), Key: fmt.Sprintf("k%d", i), Sender: []string{"", "s"}[i%2], PayloadHash: []string{"", "9f3a"}[i%3/2], Value: 9, Partition: 3},
				Final{Table: TableIdempotency, Chat: c, Seq: uint64(i), MessageID: fmt.Sprintf("m%d", i), Key: fmt.Sprintf("k%d", i), PayloadHash: "not written", Offset: 4},
				Final{Table: TableEvents, Chat: c, Seq: uint64(i), MessageID: fmt.Sprintf("m%d", i), Partition: int32(i % 3), Offset: int64(i), Key: "ignored"},
				Final{Table: TableCounters, Chat: c, Value: uint64(i), Missing: i%3 == 0, Seq: 5, MessageID: "ignored"})
			if len(plain) >= 1000 {
				plain = rec.RecordFinalBatch(plain, nil)
			}
		}
		rec.RecordFinalBatch(plain, nil)
	}
	for _, hashing := range []bool{false, true} {
		h, err := sameAsScan(t, "complete", hashing, func(rec *Recorder) {
			workload(rec)
			if err := rec.End(); err != nil {
				t.Fatal(err)
			}
			rec.Record(&Event{Kind: KindInvoke, Process: 1, F: FPersist, Chat: "late", Key: "k"}) // after the end: never written
		})
		if err != nil || h.End == 0 || h.CutShort() {
			t.Fatalf("complete: %v, end line %d", err, h.End)
		}
		h, err = sameAsScan(t, "cut short", hashing, workload)
		if err != nil || !h.CutShort() || len(h.Warnings) == 0 {
			t.Fatalf("cut short: %v, %+v", err, h)
		}
	}
	for _, bad := range []struct {
		name string
		e    Event
	}{
		{"a completion without its invoke", Event{Kind: KindOK, Process: 9, F: FPersist, Seq: 1, MessageID: "m"}},
		{"an unknown function", Event{Kind: KindInvoke, Process: 9, F: "publish", Chat: "c"}},
		{"a negative process", Event{Kind: KindInvoke, Process: -1, F: FPersist, Chat: "c", Key: "k"}},
		{"an allocate invoke", Event{Kind: KindInvoke, Process: 9, F: FAllocate, Chat: "c"}},
		{"an allocation on another chat", Event{Kind: KindTrace, Process: 1, F: FAllocate, Chat: "other", Seq: 1, Start: 1, HasStart: true}},
		{"an allocation that starts after it returned", Event{Kind: KindTrace, Process: 1, F: FAllocate, Chat: "c", Seq: 1, Start: 1 << 60, HasStart: true}},
		{"an allocation of no persist", Event{Kind: KindTrace, Process: 9, F: FAllocate, Chat: "c", Seq: 1}},
		{"a completion on another chat", Event{Kind: KindOK, Process: 1, F: FPersist, Chat: "other", Key: "k", Seq: 1, MessageID: "m"}},
		{"a completion of another key", Event{Kind: KindInfo, Process: 1, F: FPersist, Key: "other"}},
		{"a completion of another function", Event{Kind: KindFail, Process: 1, F: FSync}},
		{"an invoke while one is open", Event{Kind: KindInvoke, Process: 1, F: FSync, Chat: "c", Limit: 1}},
	} {
		_, err := sameAsScan(t, bad.name, false, func(rec *Recorder) {
			rec.Record(&Event{Kind: KindInvoke, Process: 1, F: FPersist, Chat: "c", Key: "k"})
			rec.Record(&bad.e)
			rec.Record(&Event{Kind: KindOK, Process: 1, F: FPersist, Seq: 1, MessageID: "m"})
			rec.End()
		})
		if err == nil || !strings.Contains(err.Error(), "h.jsonl:3") {
			t.Fatalf("%s: %v, want an error naming h.jsonl:3", bad.name, err)
		}
	}
	// A plain final the reader refuses is refused the general way.
	for _, bad := range []Final{
		{Table: TableEvents, Chat: "c", Seq: 1, MessageID: "m", Partition: -1},
		{Table: TableEvents, Chat: "c", Seq: 1, MessageID: "m", Offset: -1},
		{Table: "other", Chat: "c", Seq: 1},
	} {
		_, err := sameAsScan(t, "a bad plain final", false, func(rec *Recorder) {
			rec.Record(&Event{Kind: KindInvoke, Process: 1, F: FPersist, Chat: "c", Key: "k"})
			rec.RecordFinalBatch([]Final{{Table: TableCounters, Chat: "c", Value: 1}, bad}, nil)
			rec.End()
		})
		if err == nil || !strings.Contains(err.Error(), "h.jsonl:4") {
			t.Fatalf("%+v: %v, want an error naming h.jsonl:4", bad, err)
		}
	}
	if _, err := NewTap("none.jsonl", &collectSink{}).Wait(); err == nil || !strings.Contains(err.Error(), "empty history") {
		t.Fatalf("a tap no recorder wrote to: %v", err)
	}
}

// tapDecoder's line is the decoder's for the same line encoded, error and
// all, for any event or final, the ones the fast way leaves to the decoder
// included.
func TestTapLineIsTheDecodedLine(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(vs []string) string { return vs[rng.IntN(len(vs))] }
	strs := func() string { return pick(tapStrings) }
	fs := []string{FPersist, FSync, FAllocate, "", "publish"}
	tables := []string{TableCounters, TableMessages, TableIdempotency, TableEvents, "", "other"}
	hs := &hashSink{}
	for _, hashID := range []func([]byte) uint64{nil, hs.HashID} {
		fast := newTapDecoder("h.jsonl", hashID)
		slow := newTapDecoder("h.jsonl", hashID)
		for i := range 20000 {
			var pl, want parsedLine
			var err, wantErr error
			if i%4 == 3 {
				f := Final{Table: pick(tables), Chat: strs(), Value: rng.Uint64(), Seq: rng.Uint64N(100), MessageID: strs(), Key: strs(), Sender: strs(),
					Offset: rng.Int64N(5) - 1, Partition: rng.Int32N(5) - 1, Missing: rng.IntN(2) == 0}
				err = fast.final(&f, i, &pl)
				slow.enc, _ = appendFinal(slow.enc[:0], &f)
				wantErr = slow.decode(i, &want)
			} else {
				e := Event{Kind: Kind(rng.IntN(9)), Process: rng.IntN(5) - 1, F: pick(fs), Time: rng.Int64N(1000) - 10, Start: rng.Int64N(1000),
					HasStart: rng.IntN(2) == 0, Chat: strs(), Key: strs(), Sender: strs(), PayloadHash: strs(), Seq: rng.Uint64(), MessageID: strs(),
					Error: strs(), After: rng.Uint64N(10), Limit: rng.IntN(5) - 1, Dedup: rng.IntN(2) == 0, Reader: rng.IntN(2) == 0}
				switch rng.IntN(4) {
				case 1:
					e.Sync = &SyncResult{}
				case 2:
					e.Sync = &SyncResult{Seqs: []uint64{1, 5}, MessageIDs: []string{strs(), strs()}}
				case 3: // with what each message carried, or some of it
					e.Sync = &SyncResult{Seqs: []uint64{1, 5}, MessageIDs: []string{strs(), strs()}}
					for _, f := range []*[]string{&e.Sync.Keys, &e.Sync.Senders, &e.Sync.PayloadHashes} {
						if rng.IntN(3) > 0 {
							*f = []string{strs(), strs()}
						}
					}
				}
				err = fast.event(&e, i, &pl)
				slow.enc = appendEvent(slow.enc[:0], &e)
				wantErr = slow.decode(i, &want)
			}
			if fmt.Sprint(err) != fmt.Sprint(wantErr) || err == nil && !reflect.DeepEqual(pl, want) {
				t.Fatalf("line %d: the tap's line %+v (%v), the decoder's %+v (%v)", i, pl, err, want, wantErr)
			}
		}
	}
}

// Once paced, a tap never queues much more than its bound however fast
// the recorder writes, and still hands over every line.
func TestPacedTapBoundsItsQueue(t *testing.T) {
	const batch = 1000
	sink := &collectSink{}
	tp := NewTap("h.jsonl", sink)
	rec, err := NewTappedRecorder(&bytes.Buffer{}, Header{}, 0, tp)
	if err != nil {
		t.Fatal(err)
	}
	tp.Pace()
	fs := make([]Final, batch)
	for i := range fs {
		fs[i] = Final{Table: TableMessages, Chat: "c", Seq: uint64(i + 1), MessageID: "m", Key: "k"}
	}
	most := 0
	for range 4 * pacedLines / batch {
		rec.RecordFinals(fs)
		tp.mu.Lock()
		most = max(most, tp.queued)
		tp.mu.Unlock()
	}
	rec.End()
	if _, err := tp.Wait(); err != nil {
		t.Fatal(err)
	}
	if most > pacedLines+batch {
		t.Fatalf("a paced tap queued %d lines, over its bound %d", most, pacedLines+batch)
	}
	if len(sink.finals) != 4*pacedLines/batch*batch {
		t.Fatalf("the sink got %d finals of %d", len(sink.finals), 4*pacedLines/batch*batch)
	}
}

// keptUntilFull keeps what it is given until its writes run out, then
// fails every write, writing nothing.
type keptUntilFull struct {
	bytes.Buffer
	writes int
}

func (w *keptUntilFull) Write(p []byte) (int, error) {
	if w.writes == 0 {
		return 0, fmt.Errorf("disk full")
	}
	w.writes--
	return w.Buffer.Write(p)
}

// A write that fails is not tapped, nor is anything after it: the sink
// gets what the file got.
func TestTapStopsWhereTheFileDid(t *testing.T) {
	out := &keptUntilFull{writes: 3} // the header and two flushes
	sink := &collectSink{}
	tp := NewTap("h.jsonl", sink)
	rec, err := NewTappedRecorder(out, Header{}, 0, tp)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		rec.Record(&Event{Kind: KindInvoke, Process: 1, F: FPersist, Chat: "c", Key: fmt.Sprint("k", i)})
		rec.Record(&Event{Kind: KindOK, Process: 1, F: FPersist, Seq: uint64(i + 1), MessageID: "m"})
		rec.Flush()
	}
	rec.RecordFinals([]Final{{Table: TableCounters, Chat: "c", Value: 10}})
	if err := rec.End(); err == nil {
		t.Fatal("End reported no error after a failed write")
	}
	th, err := tp.Wait()
	if err != nil {
		t.Fatal(err)
	}
	want := &collectSink{}
	sh, err := Scan(bytes.NewReader(out.Bytes()), "h.jsonl", want)
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.events) != 4 || !reflect.DeepEqual(sink.events, want.events) || len(sink.finals) != 0 || !reflect.DeepEqual(th, sh) {
		t.Fatalf("the tap handed %d events and %d finals, the file holds %d and %d", len(sink.events), len(sink.finals), len(want.events), len(want.finals))
	}
}

// A flush copies its lines twice and a writer stores one a line it
// records: the compact line keeps to 104 bytes and one pointer besides its
// strings, and each line's ref reads back only as what it was made.
func TestTapLineKeepsCompact(t *testing.T) {
	if size := unsafe.Sizeof(tapLine{}); size > 104 {
		t.Fatalf("tapLine is %d bytes, want at most 104", size)
	}
	f, r, e, s := &Final{}, &Receiver{}, &Event{}, &SyncResult{}
	lines := []tapLine{finalTapLine(f), receiverTapLine(r), tapLineOf(&Event{F: "other"}, 1, false)}
	lines[2].ref = unsafe.Pointer(e)
	var ok tapLine
	if !ok.compact(&Event{Kind: KindOK, F: FSync, Sync: s}, 1) {
		t.Fatal("a sync ok is not compact")
	}
	lines = append(lines, ok)
	want := [][4]unsafe.Pointer{{unsafe.Pointer(f)}, {1: unsafe.Pointer(r)}, {2: unsafe.Pointer(e)}, {3: unsafe.Pointer(s)}}
	for i, l := range lines {
		got := [4]unsafe.Pointer{unsafe.Pointer(l.final()), unsafe.Pointer(l.receiver()), unsafe.Pointer(l.whole()), unsafe.Pointer(l.syncResult())}
		if got != want[i] {
			t.Errorf("line %d reads back %v, want %v", i, got, want[i])
		}
	}
}

// A sync invoke's user reaches the tap's sink as Scan reads it from the
// file, on the compact lines' way too (one writer, time in order, plain
// strings: every line goes that way).
func TestTapHandsOnASyncsUser(t *testing.T) {
	h, err := sameAsScan(t, "sync user", false, func(rec *Recorder) {
		for i := range 20 {
			user := []string{"", "u1", "outsider-0"}[i%3]
			rec.Record(&Event{Kind: KindInvoke, Process: i, F: FSync, Chat: "c1", After: uint64(i), Limit: 10, Sender: user})
			rec.RecordAt(&Event{Kind: KindOK, Process: i, F: FSync, Sync: &SyncResult{Seqs: []uint64{}, MessageIDs: []string{}}}, rec.Now())
		}
		if err := rec.End(); err != nil {
			t.Fatal(err)
		}
	})
	if err != nil || h.End == 0 {
		t.Fatalf("%v, end %d", err, h.End)
	}
	var named int
	_, scan, _, _, _, _ := tapped(t, false, func(rec *Recorder) {
		rec.Record(&Event{Kind: KindInvoke, Process: 1, F: FSync, Chat: "c1", Limit: 10, Sender: "u1"})
	})
	for _, e := range scan.events {
		if e.F == FSync && e.Kind == KindInvoke && e.Sender == "u1" {
			named++
		}
	}
	if named != 1 {
		t.Fatalf("the file's sync invoke names its user %d times, want once: %+v", named, scan.events)
	}
}
