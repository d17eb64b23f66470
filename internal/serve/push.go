package serve

import (
	"context"
	"fmt"

	"github.com/chatseq/chatseq/gateway"
	"github.com/chatseq/chatseq/httpapi"
	"github.com/chatseq/chatseq/kafka"
)

// memberLister is a target that lists a chat's members (the PostgreSQL
// target), so the push channel routes a chat created before a restart.
type memberLister interface {
	Members(ctx context.Context, chat string) ([]string, error)
}

// startPush starts the push channel: a gateway fed from the topic the
// target publishes to. Without Kafka there is none (httpapi answers 503
// push.unavailable).
func (s *Serving) startPush(ctx context.Context, o Options, target any) (*httpapi.Push, error) {
	broken := gateway.Variant("")
	if gateway.IsVariant(string(o.Variant)) {
		broken = gateway.Variant(o.Variant)
	}
	if len(s.Brokers) == 0 {
		if broken != "" {
			return nil, fmt.Errorf("--broken %s breaks the push channel, which needs the events topic: give --kafka embedded or --brokers", broken)
		}
		return nil, nil
	}
	cfg := gateway.Config{MaxDevices: o.PushMaxConnections, Variant: broken}
	if ml, ok := target.(memberLister); ok {
		cfg.Members = ml.Members
	}
	gw := gateway.New(cfg)
	feed, err := kafka.StartFeed(ctx, s.Brokers, s.Topic, nil, gw)
	if err != nil {
		gw.Close()
		return nil, err
	}
	// Closed before the target: devices are told 1001 and stop acking.
	s.closers.Push(func() error { feed.Close(); gw.Close(); return nil })
	if err := o.Metrics.AttachPush(gw, func() uint64 { return feed.Stats().Records }); err != nil {
		return nil, err
	}
	states, kept := target.(gateway.DeliveryStore)
	if !kept {
		states = &gateway.MemoryDeliveryStore{}
	}
	s.Push = &PushInfo{DeliveryStateKept: kept}
	return &httpapi.Push{Gateway: gw, States: states}, nil
}

// PushInfo says how a server pushes.
type PushInfo struct {
	// DeliveryStateKept: the target keeps delivery_state in its store
	// (a table); otherwise the server's memory holds it.
	DeliveryStateKept bool
}

// PushLine is serve's line about its push channel, for addr.
func (s *Serving) PushLine() string {
	if s.Push == nil {
		return "push channel off: /v1/push needs the events topic (--kafka embedded, or --brokers)"
	}
	where := "in this process's memory (a restart forgets it)"
	if s.Push.DeliveryStateKept {
		where = "in the target's delivery_state table"
	}
	return "push channel at ws://" + s.Addr + httpapi.PushPath + ", delivery_state kept " + where
}
