package kafka_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/chatseq/chatseq/kafka"
	"github.com/chatseq/chatseq/kafka/embedded"
	"github.com/chatseq/chatseq/sequencer"
)

// startOffsets are the topic's log start offsets: above 0 once records were
// deleted.
func startOffsets(t *testing.T, ctx context.Context, brokers []string, topic string) map[int32]int64 {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	offs, err := kadm.NewClient(cl).ListStartOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int32]int64{}
	offs.Each(func(o kadm.ListedOffset) { out[o.Partition] = o.Offset })
	return out
}

// A tail reads every event of the run, in partition and offset order, what
// was produced before it started excluded; trimming deletes what it read
// from the topic, and without trimming the topic keeps everything.
func TestTailReadsTheRunsEventsAndTrimsOnlyWhenAsked(t *testing.T) {
	for _, trim := range []bool{true, false} {
		t.Run(fmt.Sprint("trim=", trim), func(t *testing.T) {
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
				if err := pub.Publish(ctx, sequencer.MessagePersisted{Chat: chat, Seq: seq, MessageID: fmt.Sprint("m", chat, seq)}); err != nil {
					t.Fatal(err)
				}
			}
			publish("earlier-run", 1)
			from, err := kafka.EndOffsets(ctx, cluster.Brokers(), "t")
			if err != nil {
				t.Fatal(err)
			}
			tail, err := kafka.StartTail(ctx, cluster.Brokers(), "t", from, trim)
			if err != nil {
				t.Fatal(err)
			}
			defer tail.Close()
			const n = 300
			for i := range n {
				publish(fmt.Sprint("c", i%7), uint64(i/7+1))
				if i == n/2 {
					time.Sleep(1500 * time.Millisecond) // past a trim
				}
			}
			read, err := tail.Finish(ctx)
			if err != nil {
				t.Fatal(err)
			}
			events := slices.Collect(read.All())
			if len(events) != n || read.Len() != n {
				t.Fatalf("tail read %d events, want %d", len(events), n)
			}
			for i, e := range events {
				if e.Chat == "earlier-run" {
					t.Fatal("an event from before the tail's offsets was read")
				}
				if i > 0 && (e.Partition < events[i-1].Partition || e.Partition == events[i-1].Partition && e.Offset <= events[i-1].Offset) {
					t.Fatalf("events out of partition and offset order at %d", i)
				}
				if e.MessageID != fmt.Sprint("m", e.Chat, e.Seq) {
					t.Fatalf("event %+v decoded wrong", e)
				}
			}
			deleted := int64(0)
			for _, o := range startOffsets(t, ctx, cluster.Brokers(), "t") {
				deleted += o
			}
			if trim && deleted == 0 {
				t.Fatal("a trimming tail deleted nothing it had read")
			}
			if !trim && deleted != 0 {
				t.Fatalf("a tail on a user's cluster deleted %d records", deleted)
			}
		})
	}
}

// A trimming tail held by another reader (a Feed's position) deletes
// nothing past where that reader has read.
func TestATrimmingTailStopsWhereAHoldSays(t *testing.T) {
	cluster, err := embedded.Start("t", 3)
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	pub, err := kafka.NewPublisher(ctx, cluster.Brokers(), "t", 3)
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Close()
	tail, err := kafka.StartTail(ctx, cluster.Brokers(), "t", nil, true)
	if err != nil {
		t.Fatal(err)
	}
	defer tail.Close()
	hold := map[int32]int64{0: 10, 1: 10, 2: 10}
	tail.HoldTrim(func() map[int32]int64 { return hold })
	for i := range 300 {
		if err := pub.Publish(ctx, sequencer.MessagePersisted{Chat: fmt.Sprint("c", i%7), Seq: uint64(i/7 + 1), MessageID: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
		if i == 150 {
			time.Sleep(1500 * time.Millisecond) // past a trim
		}
	}
	if _, err := tail.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	deleted := int64(0)
	for p, o := range startOffsets(t, ctx, cluster.Brokers(), "t") {
		if o > hold[p] {
			t.Errorf("partition %d trimmed to %d, past the hold at %d", p, o, hold[p])
		}
		deleted += o
	}
	if deleted == 0 {
		t.Error("the held tail trimmed nothing, even below the hold")
	}
}
