package bench

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/store"
)

// Timed fault kinds.
const (
	// KafkaOutage: every publish in the window fails.
	KafkaOutage = "kafka-outage"
	// StoreLatency: every store call in the window is delayed by Latency.
	StoreLatency = "store-latency"
	// StoreStall: every store call in the window blocks until it ends.
	StoreStall = "store-stall"
	// DeleteCounter: at At the counter of chat Chat is deleted (an
	// operator's mistake; ADR-004's SEV-2).
	DeleteCounter = "delete-counter"
)

// TimedFault is a fault on the run's clock.
type TimedFault struct {
	Kind    string
	At      time.Duration // from the start of the writers
	For     time.Duration // window length (outage, latency, stall)
	Latency time.Duration // StoreLatency only
	Chat    int           // DeleteCounter only: the chat's index
}

func (f TimedFault) validate(chats int) error {
	switch f.Kind {
	case KafkaOutage, StoreStall:
		if f.For <= 0 {
			return fmt.Errorf("%s at %s needs a positive duration", f.Kind, f.At)
		}
	case StoreLatency:
		if f.For <= 0 || f.Latency <= 0 {
			return fmt.Errorf("%s at %s needs a positive duration and latency", f.Kind, f.At)
		}
	case DeleteCounter:
		if f.Chat < 0 || f.Chat >= chats {
			return fmt.Errorf("%s names chat %d, but the run has chats 0..%d", f.Kind, f.Chat, chats-1)
		}
	default:
		return fmt.Errorf("unknown timed fault %q (known: %s, %s, %s, %s)", f.Kind, KafkaOutage, StoreLatency, StoreStall, DeleteCounter)
	}
	if f.At < 0 {
		return fmt.Errorf("%s: at must not be negative, got %s", f.Kind, f.At)
	}
	return nil
}

func (f TimedFault) active(elapsed time.Duration) bool {
	return elapsed >= f.At && elapsed < f.At+f.For
}

// runClock is the run's start, set when the writers begin.
type runClock struct{ start atomic.Int64 }

func (c *runClock) begin() { c.start.Store(time.Now().UnixNano()) }
func (c *runClock) elapsed() time.Duration {
	return time.Duration(time.Now().UnixNano() - c.start.Load())
}

// outagePublisher fails publishes inside Kafka outage windows.
type outagePublisher struct {
	inner   sequencer.Publisher
	elapsed func() time.Duration
	outages []TimedFault
}

var errKafkaOutage = fmt.Errorf("kafka outage (scheduled fault)")

func (p *outagePublisher) Publish(ctx context.Context, ev sequencer.MessagePersisted) error {
	el := p.elapsed()
	for _, o := range p.outages {
		if o.active(el) {
			return errKafkaOutage
		}
	}
	return p.inner.Publish(ctx, ev)
}

// slowStore delays store calls inside latency and stall windows.
type slowStore struct {
	store.Store
	elapsed func() time.Duration
	windows []TimedFault
}

func (s *slowStore) delay(ctx context.Context) {
	el := s.elapsed()
	for _, w := range s.windows {
		if !w.active(el) {
			continue
		}
		d := w.Latency
		if w.Kind == StoreStall {
			d = w.At + w.For - el
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
		return
	}
}

func (s *slowStore) GetIdempotency(ctx context.Context, chat, key string, consistent bool) (store.IdempotencyRecord, bool, error) {
	s.delay(ctx)
	return s.Store.GetIdempotency(ctx, chat, key, consistent)
}

func (s *slowStore) IsMember(ctx context.Context, chat, user string) (bool, error) {
	s.delay(ctx)
	return s.Store.IsMember(ctx, chat, user)
}

func (s *slowStore) IncrementCounter(ctx context.Context, chat string) (uint64, error) {
	s.delay(ctx)
	return s.Store.IncrementCounter(ctx, chat)
}

func (s *slowStore) GetCounter(ctx context.Context, chat string, consistent bool) (store.Counter, error) {
	s.delay(ctx)
	return s.Store.GetCounter(ctx, chat, consistent)
}

func (s *slowStore) TransactWrite(ctx context.Context, items []store.TxItem) error {
	s.delay(ctx)
	return s.Store.TransactWrite(ctx, items)
}

func (s *slowStore) QueryMessages(ctx context.Context, q store.Query) ([]store.Message, error) {
	s.delay(ctx)
	return s.Store.QueryMessages(ctx, q)
}

// scheduleCounterDeletions deletes counters at their times until ctx ends.
func scheduleCounterDeletions(ctx context.Context, t Target, cfg Config) {
	for _, f := range cfg.Timed {
		if f.Kind != DeleteCounter {
			continue
		}
		go func(f TimedFault) {
			timer := time.NewTimer(f.At)
			defer timer.Stop()
			select {
			case <-ctx.Done():
			case <-timer.C:
				_ = t.DeleteCounter(context.WithoutCancel(ctx), chatID(cfg.ChatPrefix, f.Chat))
			}
		}(f)
	}
}
