package kafka_test

import (
	"context"
	"testing"
	"time"

	"github.com/chatseq/chatseq/kafka"
	"github.com/chatseq/chatseq/kafka/embedded"
	"github.com/chatseq/chatseq/sequencer"
)

func TestPublishThenReadBackFromOffsets(t *testing.T) {
	cluster, err := embedded.Start("t", 3)
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pub, err := kafka.NewPublisher(ctx, cluster.Brokers(), "t", 3)
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Close()
	publish := func(chat string, seq uint64) {
		t.Helper()
		if err := pub.Publish(ctx, sequencer.MessagePersisted{Chat: chat, Seq: seq, MessageID: "m" + chat, Content: "q\"uote\n"}); err != nil {
			t.Fatal(err)
		}
	}
	publish("earlier-run", 1)
	from, err := kafka.EndOffsets(ctx, cluster.Brokers(), "t")
	if err != nil {
		t.Fatal(err)
	}
	publish("a", 1)
	publish("a", 2)
	publish("b", 1)

	all, err := kafka.ReadAll(ctx, cluster.Brokers(), "t")
	if err != nil || len(all) != 4 {
		t.Fatalf("ReadAll: %d events, %v; want 4", len(all), err)
	}
	mine, err := kafka.ReadFrom(ctx, cluster.Brokers(), "t", from)
	if err != nil || len(mine) != 3 {
		t.Fatalf("ReadFrom: %+v, %v; want this run's 3 events", mine, err)
	}
	partitionOf := map[string]int32{}
	var lastSeq = map[string]uint64{}
	for _, e := range mine {
		if e.Chat == "earlier-run" {
			t.Fatal("an earlier run's event was read back")
		}
		if p, seen := partitionOf[e.Chat]; seen && p != e.Partition {
			t.Fatalf("chat %s spans partitions %d and %d: the key must be the chat id", e.Chat, p, e.Partition)
		}
		partitionOf[e.Chat] = e.Partition
		if e.Seq <= lastSeq[e.Chat] {
			t.Fatalf("chat %s read back out of order: %+v", e.Chat, mine)
		}
		lastSeq[e.Chat] = e.Seq
	}
}
