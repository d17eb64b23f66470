package history

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/internal/redact"
)

// A service may echo the credential chatseq sent it in any value it
// answers (a message id, a key read back, an error code): the file holds
// such a value as a stand-in (redact.Value), and a tapped recorder's sink,
// which feeds the run's own check and its report, gets the stand-in too,
// as Scan reads it, never the credential. The tap took the recorder's own
// values, so a run's report quoted a token its history had hidden.
func TestTapHandsTheSinkTheStandInsTheFileHolds(t *testing.T) {
	const credential = "tap-test-credential-5e1f"
	redact.Secret(credential)
	echo := "msg-" + credential
	workload := func(rec *Recorder) {
		for i := range 40 {
			p := i % 4
			chat := fmt.Sprintf("c%d", i%3)
			if i%5 == 0 {
				chat = credential
			}
			if i%4 == 3 {
				rec.Record(&Event{Kind: KindInvoke, Process: p, F: FSync, Chat: chat, After: uint64(i), Limit: 2})
				rec.RecordAt(&Event{Kind: KindOK, Process: p, F: FSync, Chat: chat, Sync: &SyncResult{Seqs: []uint64{1, 2}, MessageIDs: []string{echo, "plain"}}}, rec.Now())
				continue
			}
			key := fmt.Sprintf("k%d", i)
			if i%3 == 0 {
				key += credential
			}
			rec.Record(&Event{Kind: KindInvoke, Process: p, F: FPersist, Chat: chat, Key: key, Sender: "s" + credential, PayloadHash: credential})
			rec.RecordAt(&Event{Kind: KindTrace, Process: p, F: FAllocate, Chat: chat, Seq: uint64(i + 1)}, rec.Now())
			kind := []Kind{KindOK, KindFail, KindInfo}[i%3]
			rec.RecordAt(&Event{Kind: kind, Process: p, F: FPersist, Chat: chat, Key: key, Seq: uint64(i + 1), MessageID: echo, Error: "bad " + credential}, rec.Now())
		}
		rec.Record(&Event{Kind: KindInvoke, Process: 1 << 40, F: FPersist, Chat: "c0", Key: credential, Sender: "s"})
		rec.RecordAt(&Event{Kind: KindOK, Process: 1 << 40, F: FPersist, Seq: 7, MessageID: echo}, rec.Now())
		rec.RecordFinal(Final{Table: TableEvents, Chat: "c1", Seq: 1, MessageID: echo})
		rec.RecordFinals([]Final{{Table: TableMessages, Chat: credential, Seq: 2, MessageID: echo, Key: credential, Sender: credential, PayloadHash: credential}})
		// A batch of plain strings handed over, read without a look at
		// its strings unless a credential may hide in them.
		rec.RecordFinalBatch([]Final{
			{Table: TableIdempotency, Chat: "c0", Seq: 3, MessageID: echo, Key: "k" + credential},
			{Table: TableCounters, Chat: credential, Value: 9},
		}, nil)
		if err := rec.End(); err != nil {
			t.Fatal(err)
		}
	}
	for _, hashing := range []bool{false, true} {
		tap, _, _, _, _, _ := tapped(t, hashing, workload)
		if _, err := sameAsScan(t, "with a credential", hashing, workload); err != nil {
			t.Fatal(err)
		}
		for _, v := range []any{tap.events, tap.finals} {
			if s := fmt.Sprintf("%+v", v); strings.Contains(s, credential) {
				t.Fatalf("hashing %v: the tap handed the sink the credential: %.300s", hashing, s[strings.Index(s, credential)-100:])
			}
		}
		if len(tap.events) == 0 || len(tap.finals) != 4 || reflect.DeepEqual(tap.events[0], Event{}) {
			t.Fatalf("hashing %v: the tap handed %d events and %d finals", hashing, len(tap.events), len(tap.finals))
		}
	}
}
