package kafka_test

import (
	"context"
	"testing"
	"time"

	"github.com/chatseq/chatseq/internal/memnet"
	"github.com/chatseq/chatseq/kafka"
	"github.com/chatseq/chatseq/kafka/embedded"
	"github.com/chatseq/chatseq/sequencer"
)

// The embedded broker's clients in this process (publisher, readers)
// reach it through memory, not loopback sockets; a client of another
// process still dials its TCP port (memnet's tests). Without the
// broker's memnet listener, or a client without memnet's dialer, no
// connection is piped and this fails.
func TestEmbeddedBrokerIsReachedInProcess(t *testing.T) {
	cluster, err := embedded.Start("inproc", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	before := memnet.Piped()
	pub, err := kafka.NewPublisher(ctx, cluster.Brokers(), "inproc", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Close()
	if err := pub.Publish(ctx, sequencer.MessagePersisted{Chat: "c", Seq: 1, MessageID: "m1", Content: "x"}); err != nil {
		t.Fatal(err)
	}
	afterPublish := memnet.Piped()
	all, err := kafka.ReadAll(ctx, cluster.Brokers(), "inproc")
	if err != nil || len(all) != 1 {
		t.Fatalf("ReadAll: %d events, %v; want 1", len(all), err)
	}
	if afterPublish == before || memnet.Piped() == afterPublish {
		t.Fatalf("piped connections: %d by the publisher, %d by the reader; want both in process", afterPublish-before, memnet.Piped()-afterPublish)
	}
}
