package checker

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/chatseq/chatseq/history"
)

// writeReceiversHistory records, through history.Recorder, a run of
// chats×members receivers (one device a member) and msgs messages spread
// over the chats, each pushed to every member's device in push lines of
// batch messages, acknowledged after each push, with a dropped connection
// and a catch-up every 97th device, then settles, the messages table and
// delivery_state read back.
func writeReceiversHistory(tb testing.TB, path string, chats, members, msgs, batch int) {
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	rec, err := history.NewRecorder(w, history.Header{Target: "generated", Extra: map[string]string{history.SoleWriterField: "true"}}, 0)
	if err != nil {
		tb.Fatal(err)
	}
	must := func(_ int64, err error) {
		if err != nil {
			tb.Fatal(err)
		}
	}
	chat := func(c int) string { return fmt.Sprintf("chat-%05d", c) }
	user := func(c, m int) string { return fmt.Sprintf("user-%05d-%02d", c, m) }
	dev := func(c, m int) string { return user(c, m) + "/phone" }
	for c := range chats {
		for m := range members {
			must(rec.RecordReceiver(&history.Receiver{Kind: history.KindJoin, Chat: chat(c), User: user(c, m)}))
		}
	}
	for c := range chats {
		for m := range members {
			must(rec.RecordReceiver(&history.Receiver{Kind: history.KindConnect, Device: dev(c, m), User: user(c, m)}))
		}
	}
	// As bench's devices record them: each pushed message's content
	// hash and sender (identical_order compares them with the persist).
	type pending struct {
		seqs            []uint64
		ids             []string
		hashes, senders []string
	}
	queue := make([]pending, chats*members)
	seq := make([]uint64, chats)
	var finals []history.Final
	for n := range msgs {
		c := n % chats
		p := n % 64
		key := fmt.Sprintf("k-%07d", n)
		hash := fmt.Sprintf("%016x", uint64(n)*0x9E3779B97F4A7C15)
		rec.Record(&history.Event{Kind: history.KindInvoke, Process: p, F: history.FPersist, Chat: chat(c), Key: key, Sender: user(c, n%members), PayloadHash: hash})
		seq[c]++
		id := fmt.Sprintf("m-%07d", n)
		rec.Record(&history.Event{Kind: history.KindOK, Process: p, F: history.FPersist, Chat: chat(c), Key: key, Seq: seq[c], MessageID: id})
		finals = append(finals, history.Final{Table: history.TableMessages, Chat: chat(c), Seq: seq[c], MessageID: id, Key: key, Sender: user(c, n%members)})
		for m := range members {
			q := &queue[c*members+m]
			q.seqs, q.ids = append(q.seqs, seq[c]), append(q.ids, id)
			q.hashes, q.senders = append(q.hashes, hash), append(q.senders, user(c, n%members))
			if len(q.seqs) < batch {
				continue
			}
			must(rec.RecordReceiver(&history.Receiver{Kind: history.KindPush, Device: dev(c, m), Chat: chat(c), Seqs: q.seqs, MessageIDs: q.ids, PayloadHashes: q.hashes, Senders: q.senders}))
			must(rec.RecordReceiver(&history.Receiver{Kind: history.KindDeliveryAck, Device: dev(c, m), Chat: chat(c), Seq: q.seqs[len(q.seqs)-1]}))
			q.seqs, q.ids, q.hashes, q.senders = nil, nil, nil, nil
		}
	}
	var rows []history.Receiver
	for c := range chats {
		for m := range members {
			q := &queue[c*members+m]
			d := c*members + m
			if d%97 == 0 { // dropped: the rest comes by a catch-up sync
				must(rec.RecordReceiver(&history.Receiver{Kind: history.KindDisconnect, Device: dev(c, m), Error: "dropped"}))
				must(rec.RecordReceiver(&history.Receiver{Kind: history.KindConnect, Device: dev(c, m), User: user(c, m)}))
			}
			if len(q.seqs) > 0 {
				must(rec.RecordReceiver(&history.Receiver{Kind: history.KindPush, Device: dev(c, m), Chat: chat(c), Seqs: q.seqs, MessageIDs: q.ids, PayloadHashes: q.hashes, Senders: q.senders, CatchUp: d%97 == 0}))
				must(rec.RecordReceiver(&history.Receiver{Kind: history.KindDeliveryAck, Device: dev(c, m), Chat: chat(c), Seq: seq[c]}))
			}
			must(rec.RecordReceiver(&history.Receiver{Kind: history.KindSettled, Device: dev(c, m)}))
			rows = append(rows, history.Receiver{Kind: history.KindFinal, Chat: chat(c), User: user(c, m), Seq: seq[c]})
		}
	}
	rec.RecordFinals(finals)
	if err := rec.RecordTableRead(history.TableMessages, len(finals)); err != nil {
		tb.Fatal(err)
	}
	for i := range rows {
		must(rec.RecordReceiver(&rows[i]))
	}
	if err := rec.RecordTableRead(history.TableDeliveryState, len(rows)); err != nil {
		tb.Fatal(err)
	}
	if err := rec.End(); err != nil {
		tb.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkCheckFileReceivers10k: 10,000 devices (1,000 chats × 10
// members) and 120,000 messages, 1.2M pushes in lines of 5, checked from
// the file as chatseq check does. go test -run XXX -bench
// CheckFileReceivers10k -benchtime 1x ./checker/ reports the check's
// peak RSS and heap.
func BenchmarkCheckFileReceivers10k(b *testing.B) {
	path := filepath.Join(b.TempDir(), "receivers.jsonl")
	writeReceiversHistory(b, path, 1000, 10, 120_000, 5)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		resetPeakRSS()
		s := startSampler()
		r, _, err := CheckFile(path, Options{})
		peak := s.finish()
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(st.Size())/(1<<20), "file-MB")
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		b.ReportMetric(float64(peakRSS())/(1<<20), "peak-RSS-MB")
		for _, name := range []string{NameEventualVisibility, NameIdenticalOrder, NameDeliveryStateConsistency, NamePushAuthorization} {
			res, ok := r.Result(name)
			if !ok || res.Status != Pass {
				b.Fatalf("%s = %s: %s", name, res.Status, res.Detail)
			}
		}
		if d := r.Stats.Delivery; d == nil || d.Pushed != 1_200_000 || d.Devices != 10_000 {
			b.Fatalf("delivery stats %+v", d)
		}
		b.StartTimer()
	}
}
