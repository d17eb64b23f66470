package kafka_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/chatseq/chatseq/kafka"
	"github.com/chatseq/chatseq/kafka/embedded"
)

// A service's relay may publish in Kafka transactions (exactly-once
// outboxes do). The topic then holds commit and abort markers, each at an
// offset no record is read at, and the records of aborted transactions,
// which no consumer reading committed data ever sees. Reading the topic
// back must end at its last marker and leave the aborted events out: it
// waited for a record at the marker's offset until its deadline (a run
// then failed after a minute), and an aborted publish counted as an event
// the topic holds, which could hide a message the relay never published.
func TestReadBackEndsAtTransactionMarkersAndLeavesAbortedEventsOut(t *testing.T) {
	cluster, err := embedded.Start("tx", 2)
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	from, err := kafka.EndOffsets(ctx, cluster.Brokers(), "tx")
	if err != nil {
		t.Fatal(err)
	}
	tail, err := kafka.StartTail(ctx, cluster.Brokers(), "tx", from, false)
	if err != nil {
		t.Fatal(err)
	}
	defer tail.Close()

	producer, err := kgo.NewClient(kgo.SeedBrokers(cluster.Brokers()...), kgo.TransactionalID("relay"), kgo.DefaultProduceTopic("tx"))
	if err != nil {
		t.Fatal(err)
	}
	defer producer.Close()
	publish := func(commit kgo.TransactionEndTry, chat string, seqs ...uint64) {
		t.Helper()
		if err := producer.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		for _, seq := range seqs {
			value := fmt.Sprintf(`{"payload":{"chat_id":%q,"sequence":%d,"message_id":"%s-%d"}}`, chat, seq, chat, seq)
			if err := producer.ProduceSync(ctx, &kgo.Record{Key: []byte(chat), Value: []byte(value)}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
		if err := producer.EndTransaction(ctx, commit); err != nil {
			t.Fatal(err)
		}
	}
	publish(kgo.TryCommit, "a", 1, 2)
	publish(kgo.TryAbort, "a", 3)
	publish(kgo.TryCommit, "b", 1)
	publish(kgo.TryAbort, "b", 2) // the topic ends on an abort marker

	want := map[string]bool{"a-1": true, "a-2": true, "b-1": true}
	check := func(how string, events []kafka.Event, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", how, err)
		}
		got := map[string]bool{}
		for _, e := range events {
			got[e.MessageID] = true
		}
		if len(events) != len(want) || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s: %+v; want the committed events %v alone", how, events, want)
		}
	}
	readCtx, readCancel := context.WithTimeout(ctx, 20*time.Second)
	defer readCancel()
	all, err := kafka.ReadAll(readCtx, cluster.Brokers(), "tx")
	check("ReadAll", all, err)
	finished, err := tail.Finish(readCtx)
	var tailed []kafka.Event
	for e := range finished.All() {
		tailed = append(tailed, e)
	}
	check("Tail.Finish", tailed, err)
}
