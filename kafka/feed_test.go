package kafka_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/chatseq/chatseq/gateway"
	"github.com/chatseq/chatseq/kafka"
	"github.com/chatseq/chatseq/kafka/embedded"
	"github.com/chatseq/chatseq/sequencer"
)

// A feed hands the gateway what is published after it starts, whole
// (sender, content, time), in the topic's order with its duplicates; a
// record that is no event is skipped and counted, not fatal.
func TestAFeedDeliversTheTopicAsPublished(t *testing.T) {
	cluster, err := embedded.Start("ev", 2)
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	pub, err := kafka.NewPublisher(ctx, cluster.Brokers(), "ev", 2)
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Close()
	created := time.Date(2026, 1, 30, 14, 30, 0, 123_000_000, time.UTC)
	publish := func(chat string, seq uint64) {
		t.Helper()
		ev := sequencer.MessagePersisted{Chat: chat, Seq: seq, MessageID: fmt.Sprint(chat, "-", seq), Sender: "alice", Content: "hi", ContentType: "text/plain", CreatedAt: created, EventTime: created}
		if err := pub.Publish(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	publish("a", 1) // before the feed: a device catches up on it by sync

	g := gateway.New(gateway.Config{})
	g.SetMembers("a", []string{"bob"})
	g.SetMembers("b", []string{"bob"})
	bob, _ := g.Subscribe("bob")
	feed, err := kafka.StartFeed(ctx, cluster.Brokers(), "ev", nil, g)
	if err != nil {
		t.Fatal(err)
	}
	defer feed.Close()

	publish("a", 2)
	publish("b", 1)
	publish("a", 3)
	publish("a", 3) // a republish: delivered again
	raw, err := kgo.NewClient(kgo.SeedBrokers(cluster.Brokers()...))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if err := raw.ProduceSync(ctx, &kgo.Record{Topic: "ev", Key: []byte("a"), Value: []byte("not json")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	publish("a", 4)
	if err := feed.WaitCaughtUp(ctx); err != nil {
		t.Fatal(err)
	}

	var got []*gateway.Message
	for len(got) < 5 {
		if got, err = bob.Next(ctx, got); err != nil {
			t.Fatal(err)
		}
	}
	perChat := map[string][]uint64{}
	for _, m := range got {
		perChat[m.ChatID] = append(perChat[m.ChatID], m.Sequence)
	}
	if fmt.Sprint(perChat) != "map[a:[2 3 3 4] b:[1]]" {
		t.Errorf("per chat bob got %v, want a:[2 3 3 4] b:[1]", perChat)
	}
	m := got[0]
	if m.SenderID != "alice" || m.Content != "hi" || m.ContentType != "text/plain" || !m.CreatedAt.Equal(created) || m.MessageID != m.ChatID+"-"+fmt.Sprint(m.Sequence) {
		t.Errorf("a delivered message lost fields of its event: %+v", *m)
	}
	s := feed.Stats()
	if s.Records != 5 || s.Undecodable != 1 || s.LastError == nil {
		t.Errorf("feed stats %+v, want 5 records and 1 undecodable with its error", s)
	}
}

// While the broker answers no fetch, nothing is delivered; once it is
// back, the feed resumes where it stopped and delivers everything, in
// order.
func TestAFeedStallsThroughABrokerOutageAndCatchesUp(t *testing.T) {
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "ev"))
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	brokers := cluster.ListenAddrs()
	pub, err := kafka.NewPublisher(ctx, brokers, "ev", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Close()
	g := gateway.New(gateway.Config{})
	g.SetMembers("a", []string{"bob"})
	bob, _ := g.Subscribe("bob")
	feed, err := kafka.StartFeed(ctx, brokers, "ev", nil, g)
	if err != nil {
		t.Fatal(err)
	}
	defer feed.Close()

	var mu sync.Mutex
	down, refused := true, 0
	cluster.ControlKey(int16(kmsg.Fetch), func(kmsg.Request) (kmsg.Response, error, bool) {
		mu.Lock()
		defer mu.Unlock()
		if !down {
			cluster.DropControl()
			return nil, nil, false
		}
		cluster.KeepControl()
		refused++
		return nil, errors.New("broker down"), true
	})
	for seq := uint64(1); seq <= 20; seq++ {
		if err := pub.Publish(ctx, sequencer.MessagePersisted{Chat: "a", Seq: seq, MessageID: fmt.Sprint(seq)}); err != nil {
			t.Fatal(err)
		}
	}
	for {
		mu.Lock()
		n := refused
		mu.Unlock()
		if n >= 3 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if q := bob.Queued(); q != 0 {
		t.Fatalf("%d messages delivered while the broker answered no fetch", q)
	}
	mu.Lock()
	down = false
	mu.Unlock()
	if err := feed.WaitCaughtUp(ctx); err != nil {
		t.Fatal(err)
	}
	var got []*gateway.Message
	for len(got) < 20 {
		if got, err = bob.Next(ctx, got); err != nil {
			t.Fatal(err)
		}
	}
	for i, m := range got {
		if m.Sequence != uint64(i+1) {
			t.Fatalf("message %d is sequence %d", i, m.Sequence)
		}
	}
}
