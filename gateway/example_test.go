package gateway_test

import (
	"context"
	"fmt"

	"github.com/chatseq/chatseq/gateway"
)

// An in-process device: bench's receivers use the gateway as /v1/push
// does. In a run, kafka.StartFeed(ctx, brokers, topic, from, gw) calls
// Deliver with what it reads from the events topic (and a trimming
// kafka.Tail is held at the feed's Position with HoldTrim); here the
// example delivers by hand.
func Example() {
	gw := gateway.New(gateway.Config{})
	defer gw.Close()
	gw.SetMembers("chat-1", []string{"alice", "bob"})

	// Subscribe first, then catch up by sync from the last acked
	// sequence (ADR-001 §4): nothing falls between the two.
	phone, err := gw.Subscribe("bob")
	if err != nil {
		panic(err)
	}
	defer phone.Close()

	gw.Deliver(context.Background(), []*gateway.Message{
		{ChatID: "chat-1", Sequence: 2, MessageID: "m2"},
		{ChatID: "chat-1", Sequence: 1, MessageID: "m1"},
	})
	msgs, err := phone.Next(context.Background(), nil)
	if err != nil { // gateway.ErrOverflow: reconnect and catch up by sync
		panic(err)
	}
	for _, m := range msgs {
		fmt.Println(m.ChatID, m.Sequence, m.MessageID)
	}

	// Acks go to a DeliveryStore: the target's when it keeps one (the
	// PostgreSQL target), else one in memory.
	var states gateway.MemoryDeliveryStore
	kept, _ := states.RecordAck(context.Background(), "chat-1", "bob", 2)
	fmt.Println("delivery_state", kept)
	// Output:
	// chat-1 2 m2
	// chat-1 1 m1
	// delivery_state 2
}
