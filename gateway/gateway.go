// Package gateway is the delivery plane's fan-out (ADR-001's Gateway, its
// push half): a device subscribes as a user, and every message delivered
// to a chat is queued for each device of each of the chat's members, in
// the order delivered. It knows no transport: chatseq serve's /v1/push puts
// a WebSocket in front of a Device, and bench's in-process devices read
// one directly, so both see the same fan-out.
//
// A device's queue is bounded: a device that does not keep up is closed
// with ErrOverflow (the WebSocket closes with 1013, "try again later") and
// what it had queued is counted as dropped; a message is never left out of
// a queue silently.
package gateway

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// Message is one persisted message as the events topic carries it.
// Delivered messages are shared by every device they reach: read them,
// never change them.
type Message struct {
	ChatID      string
	Sequence    uint64
	MessageID   string
	SenderID    string
	Content     string
	ContentType string
	CreatedAt   time.Time
	// ContentGiven: the channel carried the message's content, so an
	// empty Content is what it pushed, not something it does not say (a
	// sync page read over HTTP, a mapped push without a content path).
	ContentGiven bool
}

// Errors a subscription or a device ends with.
var (
	// ErrOverflow: the device's queue was full; it missed messages and
	// must reconnect and catch up by sync (ADR-001 §4).
	ErrOverflow = errors.New("gateway: the device fell behind: its queue is full")
	// ErrTooManyDevices: the gateway holds Config.MaxDevices already.
	ErrTooManyDevices = errors.New("gateway: too many devices connected")
	// ErrClosed: the gateway was closed, or the device unsubscribed.
	ErrClosed = errors.New("gateway: closed")
	// ErrBadFrame is wrapped by the error a device's connection ends with
	// on a frame in breach of the push channel's API (docs/asyncapi.yaml,
	// or an --api mapping's push): the disconnect line's error then
	// starts history.DisconnectBadFrame, which api_conformance fails on
	// (the same word: gateway, a bottom layer, does not import history;
	// bench's TestBadFrameIsTheHistorysWord holds them together).
	ErrBadFrame = errors.New("bad_frame")
)

// Defaults of Config.
const (
	DefaultQueueLimit = 4096
	DefaultMaxDevices = 50_000
	DefaultMaxBatch   = 256
)

// MembersFunc names a chat's members; nil or empty when the chat is not
// known.
type MembersFunc func(ctx context.Context, chat string) ([]string, error)

// Config bounds a gateway.
type Config struct {
	// QueueLimit is how many messages one device may have waiting; the
	// one past it closes the device with ErrOverflow. 0: DefaultQueueLimit.
	QueueLimit int
	// MaxDevices is how many devices may be subscribed at once.
	// 0: DefaultMaxDevices.
	MaxDevices int
	// MaxBatch is the most messages one Next returns. 0: DefaultMaxBatch.
	MaxBatch int
	// Members resolves a chat SetMembers did not name (one created
	// before this gateway started). nil: such a chat reaches nobody, and
	// its messages count as Stats.Unrouted.
	Members MembersFunc
	// Variant is a deliberately broken gateway (BrokenVariants); "": as
	// designed.
	Variant Variant
}

func (c Config) withDefaults() Config {
	if c.QueueLimit <= 0 {
		c.QueueLimit = DefaultQueueLimit
	}
	if c.MaxDevices <= 0 {
		c.MaxDevices = DefaultMaxDevices
	}
	if c.MaxBatch <= 0 {
		c.MaxBatch = DefaultMaxBatch
	}
	if c.Variant == SlowDrop {
		c.QueueLimit = min(c.QueueLimit, SlowDropQueue)
	}
	return c
}

// Gateway routes delivered messages to the devices of each chat's members.
// It is safe for concurrent use.
type Gateway struct {
	cfg Config

	mu      sync.RWMutex
	devices map[string][]*Device // by user
	count   int
	closed  bool

	chats chatIndex
	stats counters
}

// New starts a gateway with no devices.
func New(cfg Config) *Gateway {
	return &Gateway{cfg: cfg.withDefaults(), devices: map[string][]*Device{}}
}

// SetMembers names a chat's members (a chat created while the gateway
// runs). Memberships do not change after a chat is created.
func (g *Gateway) SetMembers(chat string, members []string) { g.chats.set(chat, members) }

// Highest is the highest sequence of chat the gateway has been delivered
// (0: none): a delivery ack at or below it acknowledges a message that
// exists.
func (g *Gateway) Highest(chat string) uint64 { return g.chats.highest(chat) }

// Subscribe connects a device of user. The device receives every message
// delivered after Subscribe returns, of every chat user is a member of;
// what came before is the device's to catch up by sync.
func (g *Gateway) Subscribe(user string) (*Device, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.closed:
		return nil, ErrClosed
	case g.count >= g.cfg.MaxDevices:
		g.stats.refused.Add(1)
		return nil, ErrTooManyDevices
	}
	d := &Device{g: g, user: user, notify: make(chan struct{}, 1), done: make(chan struct{})}
	g.devices[user] = append(g.devices[user], d)
	g.count++
	g.stats.subscribed.Add(1)
	return d, nil
}

// unsubscribe takes d out of the routing; its queue is already closed.
func (g *Gateway) unsubscribe(d *Device) {
	g.mu.Lock()
	defer g.mu.Unlock()
	list := g.devices[d.user]
	for i, x := range list {
		if x == d {
			list[i] = list[len(list)-1]
			list[len(list)-1] = nil
			list = list[:len(list)-1]
			g.count--
			break
		}
	}
	if len(list) == 0 {
		delete(g.devices, d.user)
	} else {
		g.devices[d.user] = list
	}
}

// Deliver queues each message for every device of its chat's members, in
// the order given: the order a consumer of the topic read them in,
// duplicates included. Messages are shared by the devices; the caller
// must not change them afterwards.
func (g *Gateway) Deliver(ctx context.Context, msgs []*Message) {
	g.stats.published.Add(uint64(len(msgs)))
	for _, m := range msgs {
		g.chats.saw(m.ChatID, m.Sequence)
		members := g.chats.members(ctx, m.ChatID, g.cfg.Members)
		if members != nil && g.cfg.Variant == ForeignPush {
			members = g.chats.bucketMembers(m.ChatID)
		}
		if members == nil {
			g.stats.unrouted.Add(1)
			continue
		}
		if g.cfg.Variant == StripContent {
			stripped := *m // the broken gateway: the content is left out
			stripped.Content = ""
			m = &stripped
		}
		g.mu.RLock()
		for _, u := range members {
			for _, d := range g.devices[u] {
				if g.cfg.Variant == LateStart && d.notStreamingYet() {
					continue // the broken gateway: not subscribed yet
				}
				d.push(m)
			}
			if g.cfg.Variant == FirstDevice && len(g.devices[u]) > 0 {
				break // the broken gateway: the first member found is taken for all
			}
		}
		g.mu.RUnlock()
	}
}

// Close closes every device with ErrClosed and refuses new ones.
func (g *Gateway) Close() {
	g.mu.Lock()
	g.closed = true
	var all []*Device
	for _, list := range g.devices {
		all = append(all, list...)
	}
	g.mu.Unlock()
	for _, d := range all {
		d.end(ErrClosed)
	}
}

// Stats are the gateway's counters since it started.
type Stats struct {
	Devices    int    // subscribed now
	Subscribed uint64 // subscriptions accepted
	Refused    uint64 // subscriptions refused at MaxDevices
	Published  uint64 // messages delivered to the gateway
	Unrouted   uint64 // messages of a chat whose members are not known
	Queued     uint64 // (message, device) pairs queued
	Deliveries uint64 // (message, device) pairs a device took (Next)
	Overflows  uint64 // devices closed because their queue was full
	// Dropped are (message, device) pairs that never reached their
	// device: queued to, or arriving at, a device closed by overflow. Each
	// belongs to a device told so (ErrOverflow), never a silent loss.
	Dropped uint64
	// MostQueued is the longest single device queue seen.
	MostQueued int
}

// Stats reads the counters.
func (g *Gateway) Stats() Stats {
	g.mu.RLock()
	n := g.count
	g.mu.RUnlock()
	return Stats{
		Devices: n, Subscribed: g.stats.subscribed.Load(), Refused: g.stats.refused.Load(),
		Published: g.stats.published.Load(), Unrouted: g.stats.unrouted.Load(),
		Queued: g.stats.queued.Load(), Deliveries: g.stats.deliveries.Load(),
		Overflows: g.stats.overflows.Load(), Dropped: g.stats.dropped.Load(),
		MostQueued: int(g.stats.mostQueued.Load()),
	}
}

type counters struct {
	subscribed, refused, published, unrouted atomic.Uint64
	queued, deliveries, overflows, dropped   atomic.Uint64
	mostQueued                               atomic.Int64
}

func (c *counters) sawQueue(n int) {
	for {
		cur := c.mostQueued.Load()
		if int64(n) <= cur || c.mostQueued.CompareAndSwap(cur, int64(n)) {
			return
		}
	}
}
