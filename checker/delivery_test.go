package checker

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chatseq/chatseq/history"
)

// Receiver lines for hb: each takes the next line and a later time, as
// the reader's rules want them (history FORMAT.md, "Receivers").

func (b *hb) recv(r history.Receiver) int {
	b.line++
	b.now += 10
	r.Line, r.Time = b.line, b.now
	b.h.Receivers = append(b.h.Receivers, r)
	return b.line
}

func (b *hb) join(chat, user string) int {
	return b.recv(history.Receiver{Kind: history.KindJoin, Chat: chat, User: user})
}

func (b *hb) leave(chat, user string) int {
	return b.recv(history.Receiver{Kind: history.KindLeave, Chat: chat, User: user})
}

func (b *hb) connect(dev, user string) int {
	return b.recv(history.Receiver{Kind: history.KindConnect, Device: dev, User: user})
}

func (b *hb) connectRefused(dev, user string) int {
	return b.recv(history.Receiver{Kind: history.KindConnect, Device: dev, User: user, Refused: true, Error: "unauthenticated"})
}

func (b *hb) disconnect(dev string) int {
	return b.recv(history.Receiver{Kind: history.KindDisconnect, Device: dev})
}

// push pushes the committed messages at seqs (made-up ids where none).
func (b *hb) push(dev, chat string, seqs ...uint64) int {
	ids := make([]string, len(seqs))
	for i, s := range seqs {
		ids[i] = b.idAt(chat, s)
	}
	return b.pushIDs(dev, chat, seqs, ids, false)
}

func (b *hb) catchUp(dev, chat string, seqs ...uint64) int {
	ids := make([]string, len(seqs))
	for i, s := range seqs {
		ids[i] = b.idAt(chat, s)
	}
	return b.pushIDs(dev, chat, seqs, ids, true)
}

func (b *hb) pushIDs(dev, chat string, seqs []uint64, ids []string, catchUp bool) int {
	return b.recv(history.Receiver{Kind: history.KindPush, Device: dev, Chat: chat, Seqs: seqs, MessageIDs: ids, CatchUp: catchUp})
}

func (b *hb) deliveryAck(dev, chat string, seq uint64) int {
	return b.recv(history.Receiver{Kind: history.KindDeliveryAck, Device: dev, Chat: chat, Seq: seq})
}

func (b *hb) settled(dev string) int {
	return b.recv(history.Receiver{Kind: history.KindSettled, Device: dev})
}

// deliveryState writes a final delivery_state row.
func (b *hb) deliveryState(chat, user string, seq uint64) int {
	b.line++
	b.h.Receivers = append(b.h.Receivers, history.Receiver{Line: b.line, Kind: history.KindFinal, Chat: chat, User: user, Seq: seq})
	return b.line
}

// deliveryStateRead writes the delivery_state table_read line for the
// rows written so far.
func (b *hb) deliveryStateRead() int {
	b.line++
	var n uint64
	for _, r := range b.h.Receivers {
		if r.Kind == history.KindFinal {
			n++
		}
	}
	b.h.TablesRead = append(b.h.TablesRead, history.TableRead{Line: b.line, Table: history.TableDeliveryState, Lines: n, Found: n})
	return b.line
}

// deliveryLines are the lines of deliveredChat worth naming in tests.
type deliveryLines struct {
	joinU2, connectD2, settledD1, settledD2, ackD1 int
	msg                                            dumpLines
	rowU1                                          int
}

// deliveredChat is chat A with members u1 and u2, one device each, two
// messages sent and pushed to both (one duplicate, one out of order),
// acknowledged, settled, and the final state with delivery_state read:
// it keeps every delivery invariant.
func deliveredChat() (*hb, deliveryLines) {
	var l deliveryLines
	b := newHB()
	b.join("A", "u1")
	l.joinU2 = b.join("A", "u2")
	b.connect("d1", "u1")
	l.connectD2 = b.connect("d2", "u2")
	b.send(1, "A", "k1", 1)
	b.push("d1", "A", 1)
	b.send(2, "A", "k2", 2)
	b.push("d2", "A", 2)
	b.push("d1", "A", 2, 1) // 1 again: a duplicate
	b.push("d2", "A", 1)    // below 2: out of order
	l.ackD1 = b.deliveryAck("d1", "A", 2)
	b.deliveryAck("d2", "A", 2)
	l.settledD1 = b.settled("d1")
	l.settledD2 = b.settled("d2")
	l.msg = b.dump(false)
	l.rowU1 = b.deliveryState("A", "u1", 2)
	b.deliveryState("A", "u2", 2)
	b.deliveryStateRead()
	return b, l
}

// The Log takes receiver lines from a read History and from a file
// (as a history.ReceiverSink) alike, and counts duplicates and
// out-of-order arrivals: at-least-once transport, never failed.
func TestDeliveryStatistics(t *testing.T) {
	b, _ := deliveredChat()
	r := b.check(t)
	s := r.Stats.Delivery
	if s == nil {
		t.Fatal("no delivery statistics")
	}
	want := DeliveryStats{Devices: 2, Settled: 2, PushLines: 4, Pushed: 5, Duplicates: 1, OutOfOrder: 1, Acks: 2}
	if *s != want {
		t.Errorf("delivery stats %+v, want %+v", *s, want)
	}
	mustContain(t, reportText(r), "delivery: 2 devices (2 settled), 4 pushes of 5 messages, 1 duplicates, 1 out of order")

	r, _, err := CheckFile(filepath.Join("..", "history", "testdata", "receivers.jsonl"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s := r.Stats.Delivery; s == nil || s.Devices != 3 || s.Settled != 2 || s.Pushed != 4 || s.Duplicates != 0 || s.OutOfOrder != 1 || s.Acks != 2 {
		t.Errorf("delivery stats of the reader's receivers file: %+v", s)
	}
	if r := keepsEverything().check(t); r.Stats.Delivery != nil {
		t.Errorf("delivery stats %+v without receivers", r.Stats.Delivery)
	}
}

// A run checks its history as the recorder writes it (history.Tap, the
// Log as its ReceiverSink, message ids as hashes): the same verdicts as
// the file read back, a miss included.
func TestTappedReceiversCheckAsTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tapped.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l := NewLog()
	tap := history.NewTap(path, l)
	rec, err := history.NewTappedRecorder(f, history.Header{Extra: map[string]string{history.SoleWriterField: "true"}}, 0, tap)
	if err != nil {
		t.Fatal(err)
	}
	record := func(r history.Receiver) {
		if _, err := rec.RecordReceiver(&r); err != nil {
			t.Fatal(err)
		}
	}
	record(history.Receiver{Kind: history.KindJoin, Chat: "A", User: "u1"})
	record(history.Receiver{Kind: history.KindJoin, Chat: "A", User: "u2"})
	record(history.Receiver{Kind: history.KindConnect, Device: "d1", User: "u1"})
	record(history.Receiver{Kind: history.KindConnect, Device: "d2", User: "u2"})
	var finals []history.Final
	for i, id := range []string{"m1", "m2"} {
		key := "k" + id
		rec.Record(&history.Event{Kind: history.KindInvoke, Process: i, F: history.FPersist, Chat: "A", Key: key, Sender: "u1"})
		rec.Record(&history.Event{Kind: history.KindOK, Process: i, F: history.FPersist, Chat: "A", Key: key, Seq: uint64(i + 1), MessageID: id})
		finals = append(finals, history.Final{Table: history.TableMessages, Chat: "A", Seq: uint64(i + 1), MessageID: id, Key: key, Sender: "u1"})
	}
	record(history.Receiver{Kind: history.KindPush, Device: "d1", Chat: "A", Seqs: []uint64{2, 1}, MessageIDs: []string{"m2", "m1"}})
	record(history.Receiver{Kind: history.KindPush, Device: "d2", Chat: "A", Seqs: []uint64{1}, MessageIDs: []string{"m1"}}) // never m2
	record(history.Receiver{Kind: history.KindDeliveryAck, Device: "d1", Chat: "A", Seq: 2})
	record(history.Receiver{Kind: history.KindSettled, Device: "d1"})
	record(history.Receiver{Kind: history.KindSettled, Device: "d2"})
	rec.RecordFinals(finals)
	if err := rec.RecordTableRead(history.TableMessages, len(finals)); err != nil {
		t.Fatal(err)
	}
	record(history.Receiver{Kind: history.KindFinal, Chat: "A", User: "u1", Seq: 2})
	if err := rec.RecordTableRead(history.TableDeliveryState, 1); err != nil {
		t.Fatal(err)
	}
	if err := rec.End(); err != nil {
		t.Fatal(err)
	}
	h, err := tap.Wait()
	if err != nil {
		t.Fatal(err)
	}
	tapped := l.Check(h, Options{})
	read, _, err := CheckFile(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []Report{tapped, read} {
		for _, name := range []string{NameIdenticalOrder, NameDeliveryStateConsistency, NamePushAuthorization} {
			must(t, r, name, Pass)
		}
		mustFail(t, r, NameEventualVisibility, 3, 5, 14, 16) // u2's join, d2's connect, d2's settle, m2's final line
	}
	if *tapped.Stats.Delivery != *read.Stats.Delivery {
		t.Errorf("delivery stats tapped %+v, read %+v", *tapped.Stats.Delivery, *read.Stats.Delivery)
	}
}
