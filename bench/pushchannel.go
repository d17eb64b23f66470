package bench

import (
	"context"
	"errors"
	"time"

	"github.com/chatseq/chatseq/gateway"
	"github.com/chatseq/chatseq/kafka"
	"github.com/chatseq/chatseq/store"
	"github.com/chatseq/chatseq/target"
)

// localPush is the push channel of an embedded target: gateway.Gateway
// fed from the run's events topic by kafka.Feed, as chatseq serve's
// /v1/push is, with its devices read in process.
type localPush struct {
	gw     *gateway.Gateway
	feed   *kafka.Feed
	tgt    target.Target
	states gateway.DeliveryStore
}

func startLocalPush(ctx context.Context, tgt target.Target, brokers []string, topic string, from map[int32]int64, members map[string][]string, variant gateway.Variant) (*localPush, error) {
	gw := gateway.New(gateway.Config{Variant: variant})
	for chat, m := range members {
		gw.SetMembers(chat, m)
	}
	feed, err := kafka.StartFeed(ctx, brokers, topic, from, gw)
	if err != nil {
		gw.Close()
		return nil, err
	}
	states, kept := tgt.(gateway.DeliveryStore)
	if !kept {
		states = &gateway.MemoryDeliveryStore{}
	}
	return &localPush{gw: gw, feed: feed, tgt: tgt, states: states}, nil
}

func (p *localPush) Dial(_ context.Context, user string) (gateway.Conn, error) {
	d, err := p.gw.Subscribe(user)
	if err != nil {
		return nil, err
	}
	return &localConn{p: p, dev: d}, nil
}

func (p *localPush) CatchUp(ctx context.Context, _ string, chat string, after uint64, limit int) ([]gateway.Message, error) {
	msgs, err := p.tgt.Sync(ctx, chat, after, limit)
	return MessagesOf(msgs), err
}

// MessagesOf is a sync page as a device shows it.
func MessagesOf(msgs []store.Message) []gateway.Message {
	out := make([]gateway.Message, len(msgs))
	for i, m := range msgs {
		out[i] = gateway.Message{ChatID: m.Chat, Sequence: m.Seq, MessageID: m.MessageID, SenderID: m.Sender, Content: m.Content, ContentType: m.ContentType, CreatedAt: m.CreatedAt, ContentGiven: true}
	}
	return out
}

func (p *localPush) DeliveryStates(ctx context.Context, chat string) ([]gateway.DeliveryState, error) {
	return p.states.DeliveryStates(ctx, chat)
}

func (p *localPush) Quiesce(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	return p.feed.WaitCaughtUp(ctx)
}

func (p *localPush) Close() {
	p.feed.Close()
	p.gw.Close()
}

// localConn is a device subscribed to the in-process gateway.
type localConn struct {
	p   *localPush
	dev *gateway.Device
	buf []*gateway.Message
}

func (c *localConn) Next(ctx context.Context) ([]gateway.Message, error) {
	var err error
	c.buf, err = c.dev.Next(ctx, c.buf[:0])
	if err != nil {
		return nil, err
	}
	out := make([]gateway.Message, len(c.buf))
	for i, m := range c.buf {
		out[i] = *m
	}
	clear(c.buf)
	return out, nil
}

func (c *localConn) Ack(ctx context.Context, chat string, seq uint64) error {
	select {
	case <-c.dev.Done():
		return errors.New("the connection is closed")
	default:
	}
	_, err := c.p.states.RecordAck(ctx, chat, c.dev.User(), seq)
	return err
}

// Backlog is the gateway device's (gateway.Device.Backlog): a settling
// device waits for its stream no longer than the gateway has messages
// for it.
func (c *localConn) Backlog() (queued int, handed uint64) { return c.dev.Backlog() }

func (c *localConn) Drop()  { c.dev.Close() }
func (c *localConn) Close() { c.dev.Close() }
