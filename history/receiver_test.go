package history

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// Receiver lines that malformedReceivers builds on (line 1 is testHeader).
const (
	connectD1 = `{"type":"connect","time":5,"device":"d1","user":"u1"}`
	joinC1U1  = `{"type":"join","time":1,"chat":"c1","user":"u1"}`
)

// malformedReceivers are receiver inputs Read must reject, with the line
// and a part of the message. FuzzRead starts from them too.
var malformedReceivers = []struct {
	name  string
	input string
	line  int
	msg   string
}{
	{"unknown receiver type", lines(testHeader, `{"type":"pushed","time":1,"device":"d1"}`), 2, `unknown "type" "pushed"`},
	{"connect without user", lines(testHeader, `{"type":"connect","time":1,"device":"d1"}`), 2, `missing "user", which a connect line requires`},
	{"connect without time", lines(testHeader, `{"type":"connect","device":"d1","user":"u1"}`), 2, `missing "time", which a connect line requires`},
	{"refused not a bool", lines(testHeader, `{"type":"connect","time":1,"device":"d1","user":"u1","refused":"yes"}`), 2, `"refused" must be true or false`},
	{"device not a string", lines(testHeader, `{"type":"connect","time":1,"device":7,"user":"u1"}`), 2, `"device" must be a string`},
	{"second connect while open", lines(testHeader, connectD1, `{"type":"connect","time":6,"device":"d1","user":"u1"}`), 3, `while its connection of line 2 is open`},
	{"device of two users", lines(testHeader, connectD1, `{"type":"disconnect","time":6,"device":"d1"}`, `{"type":"connect","time":7,"device":"d1","user":"u2"}`), 4, `the device is user "u1"'s`},
	{"disconnect without connect", lines(testHeader, `{"type":"disconnect","time":6,"device":"d1"}`), 2, `disconnect of device "d1", which has no open connection`},
	{"push to an unknown device", lines(testHeader, `{"type":"push","time":6,"device":"d1","chat":"c1","seqs":[1],"message_ids":["m1"]}`), 2, `push to device "d1", which never connected`},
	{"push after disconnect", lines(testHeader, connectD1, `{"type":"disconnect","time":6,"device":"d1"}`, `{"type":"push","time":7,"device":"d1","chat":"c1","seqs":[1],"message_ids":["m1"]}`), 4, `which has no open connection (its last closed on line 3)`},
	{"push unpaired", lines(testHeader, connectD1, `{"type":"push","time":6,"device":"d1","chat":"c1","seqs":[1,2],"message_ids":["m1"]}`), 3, `"seqs" has 2 items but "message_ids" has 1`},
	{"push payload hashes unpaired", lines(testHeader, connectD1, `{"type":"push","time":6,"device":"d1","chat":"c1","seqs":[1,2],"message_ids":["m1","m2"],"payload_hashes":["h1"]}`), 3, `"seqs" has 2 items but "payload_hashes" has 1`},
	{"push senders unpaired", lines(testHeader, connectD1, `{"type":"push","time":6,"device":"d1","chat":"c1","seqs":[1],"message_ids":["m1"],"senders":["u1","u2"]}`), 3, `"seqs" has 1 items but "senders" has 2`},
	{"push senders not strings", lines(testHeader, connectD1, `{"type":"push","time":6,"device":"d1","chat":"c1","seqs":[1],"message_ids":["m1"],"senders":[7]}`), 3, `"senders"`},
	{"push without seqs", lines(testHeader, connectD1, `{"type":"push","time":6,"device":"d1","chat":"c1","message_ids":["m1"]}`), 3, `missing "seqs", which a push line requires`},
	{"push seq negative", lines(testHeader, connectD1, `{"type":"push","time":6,"device":"d1","chat":"c1","seqs":[-1],"message_ids":["m1"]}`), 3, `"seqs"`},
	{"ack without sequence", lines(testHeader, connectD1, `{"type":"delivery_ack","time":6,"device":"d1","chat":"c1"}`), 3, `missing "last_acked_sequence"`},
	{"ack of an unknown device", lines(testHeader, `{"type":"delivery_ack","time":6,"device":"d1","chat":"c1","last_acked_sequence":1}`), 2, `delivery_ack of device "d1", which never connected`},
	{"ack sequence fraction", lines(testHeader, connectD1, `{"type":"delivery_ack","time":6,"device":"d1","chat":"c1","last_acked_sequence":1.5}`), 3, `"last_acked_sequence"`},
	{"second settled", lines(testHeader, connectD1, `{"type":"settled","time":6,"device":"d1"}`, `{"type":"settled","time":7,"device":"d1"}`), 4, `a second settled line of device "d1" (the first is on line 3)`},
	{"settled unknown device", lines(testHeader, `{"type":"settled","time":6,"device":"d1"}`), 2, `settled line of device "d1", which never connected`},
	{"join twice", lines(testHeader, joinC1U1, joinC1U1), 3, `of which it is a member since line 2`},
	{"leave of a non-member", lines(testHeader, `{"type":"leave","time":1,"chat":"c1","user":"u1"}`), 2, `of which it is not a member`},
	{"receiver line back in time", lines(testHeader, connectD1, `{"type":"settled","time":4,"device":"d1"}`), 3, `"time" 4 is earlier than 5 on line 2`},
	{"receiver line after finals", lines(testHeader, `{"type":"final","table":"counters","chat":"c1","value":1}`, connectD1), 3, `connect line after the final lines (which began on line 2)`},
	{"delivery_state without user", lines(testHeader, `{"type":"final","table":"delivery_state","chat":"c1","last_acked_sequence":1}`), 2, `missing "user", which a final delivery_state line requires`},
	{"delivery_state without sequence", lines(testHeader, `{"type":"final","table":"delivery_state","chat":"c1","user":"u1"}`), 2, `missing "last_acked_sequence"`},
	{"second delivery_state table_read", lines(testHeader, `{"type":"table_read","table":"delivery_state","lines":0}`, `{"type":"table_read","table":"delivery_state","lines":0}`), 3, `a second table_read line for table "delivery_state"`},
	{"state_read without user", lines(testHeader, `{"type":"state_read","time":1,"chat":"c1"}`), 2, `missing "user", which a state_read line requires`},
	{"state_read of user \"\"", lines(testHeader, `{"type":"state_read","time":1,"chat":"c1","user":""}`), 2, `"user" is empty`},
	{"state_read without chat", lines(testHeader, `{"type":"state_read","time":1,"user":"u1"}`), 2, `missing "chat", which a state_read line requires`},
	{"receiver line after end", lines(`{"format":"chatseq-history","version":1,"end_line":true}`, `{"type":"end"}`, connectD1), 3, `connect line after the end line`},
}

func TestReadMalformedReceivers(t *testing.T) {
	for _, tt := range malformedReceivers {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tt.input), "h.jsonl")
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T %v, want *ParseError", err, err)
			}
			if pe.File != "h.jsonl" || pe.Line != tt.line || !strings.Contains(pe.Msg, tt.msg) {
				t.Errorf("got  %v\nwant h.jsonl:%d: ...%s...", err, tt.line, tt.msg)
			}
		})
	}
}

func TestReadReceivers(t *testing.T) {
	h, err := ReadFile(filepath.Join("testdata", "receivers.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Warnings) > 0 {
		t.Fatalf("warnings: %+v", h.Warnings)
	}
	if len(h.Events) != 4 || len(h.Finals) != 2 {
		t.Fatalf("%d events and %d finals, want 4 and 2", len(h.Events), len(h.Finals))
	}
	kinds := map[Kind]int{}
	for _, r := range h.Receivers {
		kinds[r.Kind]++
	}
	want := map[Kind]int{KindJoin: 2, KindLeave: 1, KindConnect: 4, KindDisconnect: 2, KindPush: 3, KindDeliveryAck: 2, KindSettled: 2, KindFinal: 2}
	if !reflect.DeepEqual(kinds, want) {
		t.Fatalf("receiver lines by kind %v, want %v", kinds, want)
	}
	first := func(k Kind) Receiver {
		for _, r := range h.Receivers {
			if r.Kind == k {
				return r
			}
		}
		t.Fatalf("no %s line", k)
		return Receiver{}
	}
	if r := h.Receivers[4]; r.Kind != KindConnect || !r.Refused || r.Error != "unauthenticated" || r.User != "x" || r.Line != 6 {
		t.Errorf("refused connect read as %+v", r)
	}
	if r := h.Receivers[7]; r.Kind != KindPush || !reflect.DeepEqual(r.Seqs, []uint64{2, 1}) || !reflect.DeepEqual(r.MessageIDs, []string{"m2", "m1"}) || r.Device != "u1/d1" || r.Chat != "c1" || r.Time != 160 || r.CatchUp {
		t.Errorf("push read as %+v", r)
	}
	if r := first(KindDeliveryAck); r.Seq != 2 || r.Device != "u1/d1" || r.Chat != "c1" {
		t.Errorf("delivery_ack read as %+v", r)
	}
	if r := first(KindFinal); r.Chat != "c1" || r.User != "u1" || r.Seq != 2 || r.Line != 24 {
		t.Errorf("delivery_state row read as %+v", r)
	}
	if !h.TableRead(TableDeliveryState) || len(h.ShortTables()) != 0 {
		t.Errorf("delivery_state table_read: %+v", h.TablesRead)
	}
}

// A delivery_state table whose table_read line promises more rows than the
// file holds was cut short, as any other table.
func TestDeliveryStateTableCutShort(t *testing.T) {
	h := mustRead(t, lines(testHeader,
		`{"type":"final","table":"delivery_state","chat":"c1","user":"u1","last_acked_sequence":2}`,
		`{"type":"table_read","table":"delivery_state","lines":2}`))
	short := h.ShortTables()
	if len(short) != 1 || short[0].Table != TableDeliveryState || short[0].Found != 1 {
		t.Fatalf("short tables %+v, want delivery_state with 1 of 2", short)
	}
}

// receiverSink takes receiver lines, as the checker's will.
type receiverSink struct {
	events    []Event
	finals    []Final
	receivers []Receiver
}

func (s *receiverSink) Event(e *Event)       { s.events = append(s.events, *e) }
func (s *receiverSink) Final(f *Final)       { s.finals = append(s.finals, *f) }
func (s *receiverSink) Receiver(r *Receiver) { s.receivers = append(s.receivers, *r) }

func TestScanHandsReceiversToAReceiverSink(t *testing.T) {
	path := filepath.Join("testdata", "receivers.jsonl")
	want, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sink receiverSink
	h, err := ScanFile(path, &sink)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Receivers) != 0 {
		t.Errorf("the History kept %d receiver lines that the sink took", len(h.Receivers))
	}
	if !reflect.DeepEqual(sink.receivers, want.Receivers) {
		t.Errorf("the sink got\n%+v\nRead gives\n%+v", sink.receivers, want.Receivers)
	}
}

// What the recorder writes of receivers reads back equal, and its tap
// hands the sink the lines Scan reads from the file.
func TestRecordReceiversRoundTrip(t *testing.T) {
	var file bytes.Buffer
	var sink receiverSink
	tap := NewTap("tapped.jsonl", &sink)
	rec, err := NewTappedRecorder(&file, Header{}, 0, tap)
	if err != nil {
		t.Fatal(err)
	}
	recorded := []Receiver{
		{Kind: KindJoin, Chat: "c1", User: "u1"},
		{Kind: KindConnect, Device: "d1", User: "u1"},
		{Kind: KindConnect, Device: "d2", User: "u\"2\u2028", Refused: true, Error: "forbidden"},
		{Kind: KindPush, Device: "d1", Chat: "c1", Seqs: []uint64{2, 1}, MessageIDs: []string{"m2", "m1"}, PayloadHashes: []string{"h2", ""}, Senders: []string{"u2", "u1"}},
		{Kind: KindPush, Device: "d1", Chat: "c1", CatchUp: true},
		{Kind: KindDeliveryAck, Device: "d1", Chat: "c1", Seq: 2},
		{Kind: KindDisconnect, Device: "d1", Error: "dropped"},
		{Kind: KindSettled, Device: "d1"},
		{Kind: KindLeave, Chat: "c1", User: "u1"},
		{Kind: KindStateRead, Chat: "c1", User: "o1", Refused: true},
		{Kind: KindStateRead, Chat: "c1", User: "o1"},
	}
	for i := range recorded {
		if i == 4 {
			rec.Record(&Event{Kind: KindInvoke, Process: 1, F: FPersist, Chat: "c1", Key: "k"})
		}
		if _, err := rec.RecordReceiver(&recorded[i]); err != nil {
			t.Fatal(err)
		}
	}
	row := Receiver{Kind: KindFinal, Chat: "c1", User: "u1", Seq: 2}
	if _, err := rec.RecordReceiver(&row); err != nil {
		t.Fatal(err)
	}
	if err := rec.RecordTableRead(TableDeliveryState, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := rec.RecordReceiver(&Receiver{Kind: KindInvoke}); err == nil {
		t.Error("RecordReceiver took an invoke")
	}
	if err := rec.End(); err != nil {
		t.Fatal(err)
	}
	if _, err := tap.Wait(); err != nil {
		t.Fatalf("tap: %v", err)
	}
	h := mustRead(t, file.String())
	want := append(recorded, row)
	got := receiversWithoutLines(h)
	for i := range want {
		want[i].Line = 0
		if len(want[i].Seqs) == 0 {
			want[i].Seqs, want[i].MessageIDs = nil, nil
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read back\n%+v\nrecorded\n%+v\nfile:\n%s", got, want, file.String())
	}
	if len(h.Events) != 1 || h.Events[0].Line != 6 {
		t.Errorf("the invoke recorded between receivers is %+v", h.Events)
	}
	if !reflect.DeepEqual(sink.receivers, h.Receivers) {
		t.Errorf("the tap handed\n%+v\nthe file reads\n%+v", sink.receivers, h.Receivers)
	}
}

// Merged shards keep their receivers, renumbered and shifted in time like
// their events; two shards naming one device are refused.
func TestMergeReceivers(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("a.jsonl", lines(testHeader, `{"type":"join","time":1,"chat":"c1","user":"u1"}`, `{"type":"connect","time":5,"device":"d1","user":"u1"}`,
		`{"type":"final","table":"delivery_state","chat":"c1","user":"u1","last_acked_sequence":0}`))
	b := write("b.jsonl", lines(testHeader, `{"type":"join","time":1,"chat":"c2","user":"u1"}`, `{"type":"connect","time":3,"device":"d2","user":"u1"}`,
		`{"type":"final","table":"delivery_state","chat":"c2","user":"u1","last_acked_sequence":0}`))
	m, err := ReadFiles([]string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Receivers) != 6 {
		t.Fatalf("%d receiver lines merged, want 6: %+v", len(m.Receivers), m.Receivers)
	}
	// The delivery_state rows come last, after every file's receivers,
	// as a history's final lines do.
	second := m.Receivers[2]
	if second.Line != 6 || second.Chat != "c2" || second.Time <= m.Receivers[1].Time {
		t.Errorf("the second file's first line merged as %+v after %+v", second, m.Receivers[1])
	}
	if file, line := m.Locate(m.Receivers[5].Line); file != b || line != 4 {
		t.Errorf("the delivery_state row locates at %s:%d", file, line)
	}
	if _, err := Read(bytes.NewReader(encodeHistory(t, m.History)), "merged.jsonl"); err != nil {
		t.Errorf("the merged history does not read back: %v", err)
	}
	c := write("c.jsonl", lines(testHeader, `{"type":"connect","time":3,"device":"d1","user":"u9"}`))
	if _, err := ReadFiles([]string{a, c}); err == nil || !strings.Contains(err.Error(), `device "d1" is in both`) {
		t.Errorf("two files with one device: %v", err)
	}
	d := write("d.jsonl", lines(testHeader, `{"type":"join","time":1,"chat":"c1","user":"u2"}`))
	if _, err := ReadFiles([]string{a, d}); err == nil || !strings.Contains(err.Error(), `chat "c1" is in both`) {
		t.Errorf("two files with one chat's membership: %v", err)
	}
	// "" is a device's or a chat's name like any other where the line
	// must name one: two files sharing it are refused, not merged into
	// one device (whose first user then judged the other's pushes) or
	// one chat.
	e := write("e.jsonl", lines(testHeader, `{"type":"join","time":1,"chat":"c5","user":"u1"}`, `{"type":"connect","time":2,"device":"","user":"u1"}`))
	f := write("f.jsonl", lines(testHeader, `{"type":"join","time":1,"chat":"c6","user":"u1"}`, `{"type":"connect","time":2,"device":"","user":"u2"}`))
	if _, err := ReadFiles([]string{e, f}); err == nil || !strings.Contains(err.Error(), `device "" is in both`) {
		t.Errorf("two files with the device \"\": %v", err)
	}
	g := write("g.jsonl", lines(testHeader, `{"type":"join","time":1,"chat":"","user":"u3"}`))
	k := write("k.jsonl", lines(testHeader, `{"type":"invoke","process":1,"f":"persist","time":10,"chat":"","key":"kb","sender":"u3"}`,
		`{"type":"ok","process":1,"f":"persist","time":20,"seq":1,"message_id":"mb"}`))
	if _, err := ReadFiles([]string{g, k}); err == nil || !strings.Contains(err.Error(), `chat "" is in both`) {
		t.Errorf("two files with the chat \"\": %v", err)
	}
	// A completion that leaves its chat out claims none.
	if _, err := ReadFiles([]string{e, k}); err != nil {
		t.Errorf("a completion without its chat claimed one: %v", err)
	}
}

// A known field on a receiver line that does not carry it is ignored
// with a warning, as on any line, and not read (FuzzRead found a connect
// line's "chat" read back).
func TestReceiverLineIgnoresFieldsItDoesNotCarry(t *testing.T) {
	h := mustRead(t, lines(testHeader,
		`{"type":"join","time":0,"chat":"c1","user":"u1","device":"d9"}`,
		`{"type":"connect","time":1,"device":"d1","user":"u1","chat":"c1","seqs":[1]}`,
		`{"type":"settled","time":2,"device":"d1","user":"u2","catch_up":true}`))
	want := []Receiver{
		{Line: 2, Kind: KindJoin, Chat: "c1", User: "u1"},
		{Line: 3, Kind: KindConnect, Time: 1, Device: "d1", User: "u1"},
		{Line: 4, Kind: KindSettled, Time: 2, Device: "d1"},
	}
	if !reflect.DeepEqual(h.Receivers, want) {
		t.Fatalf("read\n%+v\nwant\n%+v", h.Receivers, want)
	}
	if len(h.Warnings) != 5 {
		t.Errorf("warnings %+v, want one a misplaced field", h.Warnings)
	}
	if _, err := Read(bytes.NewReader(encodeHistory(t, h)), "again.jsonl"); err != nil {
		t.Fatal(err)
	}
}

// Devices recording side by side, beside operations, leave a file the
// reader accepts (each device's connect before its pushes, every join
// before them), and the tap hands the same lines.
func TestRecordReceiversSideBySide(t *testing.T) {
	var file bytes.Buffer
	var sink receiverSink
	tap := NewTap("side.jsonl", &sink)
	rec, err := NewTappedRecorder(&file, Header{}, time.Millisecond, tap)
	if err != nil {
		t.Fatal(err)
	}
	const devices, pushes = 8, 300
	for d := range devices {
		if _, err := rec.RecordReceiver(&Receiver{Kind: KindJoin, Chat: "c", User: fmt.Sprintf("u%d", d)}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for d := range devices {
		wg.Go(func() {
			dev, user := fmt.Sprintf("d%d", d), fmt.Sprintf("u%d", d)
			rec.RecordReceiver(&Receiver{Kind: KindConnect, Device: dev, User: user})
			for i := range pushes {
				rec.Record(&Event{Kind: KindInvoke, Process: d, F: FSync, Chat: "c", Limit: 1})
				rec.Record(&Event{Kind: KindOK, Process: d, F: FSync, Chat: "c", Sync: &SyncResult{}})
				rec.RecordReceiver(&Receiver{Kind: KindPush, Device: dev, Chat: "c", Seqs: []uint64{uint64(i + 1)}, MessageIDs: []string{"m"}})
				rec.RecordReceiver(&Receiver{Kind: KindDeliveryAck, Device: dev, Chat: "c", Seq: uint64(i + 1)})
			}
			rec.RecordReceiver(&Receiver{Kind: KindDisconnect, Device: dev})
			rec.RecordReceiver(&Receiver{Kind: KindSettled, Device: dev})
		})
	}
	wg.Wait()
	if err := rec.End(); err != nil {
		t.Fatal(err)
	}
	if _, err := tap.Wait(); err != nil {
		t.Fatalf("tap: %v", err)
	}
	h := mustRead(t, file.String())
	if want := devices * (4 + 2*pushes); len(h.Receivers) != want || len(h.Events) != devices*pushes*2 {
		t.Fatalf("%d receiver lines and %d events, want %d and %d", len(h.Receivers), len(h.Events), want, devices*pushes*2)
	}
	if !reflect.DeepEqual(sink.receivers, h.Receivers) {
		t.Error("the tap handed other receiver lines than the file holds")
	}
}
