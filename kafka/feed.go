package kafka

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/chatseq/chatseq/gateway"
)

// Sink takes the messages a Feed read, in the order read (a
// *gateway.Gateway).
type Sink interface {
	Deliver(ctx context.Context, msgs []*gateway.Message)
}

// Feed consumes the events topic the way a push gateway does and hands
// every MessagePersisted event to a Sink: what devices receive has the
// topic's order (per partition, so per chat), its duplicates (a republish
// is delivered again) and its lag. A broker that goes away stalls the
// feed; it resumes where it was when the broker is back.
type Feed struct {
	client *kgo.Client
	topic  string
	sink   Sink

	records, undecodable, fetchErrors atomic.Uint64

	mu      sync.Mutex
	next    map[int32]int64 // per partition: the offset after the last one read
	lastErr error

	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

// FeedStats count what a feed read.
type FeedStats struct {
	Records     uint64 // records handed to the sink
	Undecodable uint64 // records that are not MessagePersisted events, skipped
	FetchErrors uint64 // failed fetches (a broker away), retried
	LastError   error  // the latest fetch or decode error, nil if none
}

// StartFeed consumes every partition of topic from the offsets in from; a
// partition from does not name starts at its end as of the call, so a nil
// from feeds only what is published from now on (a device catches up on
// the rest by sync).
func StartFeed(ctx context.Context, brokers []string, topic string, from map[int32]int64, sink Sink) (*Feed, error) {
	ends, err := EndOffsets(ctx, brokers, topic)
	if err != nil {
		return nil, err
	}
	starts := map[string]map[int32]kgo.Offset{topic: {}}
	next := map[int32]int64{}
	for p, end := range ends {
		at, named := from[p]
		if !named {
			at = end
		}
		starts[topic][p] = kgo.NewOffset().At(at)
		next[p] = at
	}
	client, err := kgo.NewClient(
		kgo.SeedBrokers(brokers...),
		kgo.ConsumePartitions(starts),
		kgo.FetchMaxWait(20*time.Millisecond),
		// A gateway reads the newest records first thing: nothing to wait
		// for a batch to fill.
		kgo.FetchMinBytes(1),
	)
	if err != nil {
		return nil, fmt.Errorf("kafka: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	f := &Feed{client: client, topic: topic, sink: sink, next: next, cancel: cancel, done: make(chan struct{})}
	go f.run(ctx)
	return f, nil
}

// pushedEvent is the part of a MessagePersisted event a device is shown.
type pushedEvent struct {
	Payload struct {
		MessageID   string    `json:"message_id"`
		ChatID      string    `json:"chat_id"`
		Sequence    uint64    `json:"sequence"`
		SenderID    string    `json:"sender_id"`
		Content     string    `json:"content"`
		ContentType string    `json:"content_type"`
		CreatedAt   time.Time `json:"created_at"`
	} `json:"payload"`
}

func (f *Feed) run(ctx context.Context) {
	defer close(f.done)
	var batch []*gateway.Message
	for {
		fetches := f.client.PollFetches(ctx)
		if ctx.Err() != nil || fetches.IsClientClosed() {
			return
		}
		fetches.EachError(func(_ string, p int32, err error) {
			f.fetchErrors.Add(1)
			f.setErr(fmt.Errorf("kafka: feeding from %s partition %d: %w", f.topic, p, err))
		})
		batch = batch[:0]
		read := map[int32]int64{}
		fetches.EachRecord(func(r *kgo.Record) {
			read[r.Partition] = r.Offset + 1
			var ev pushedEvent
			if err := json.Unmarshal(r.Value, &ev); err != nil || ev.Payload.ChatID == "" {
				f.undecodable.Add(1)
				f.setErr(fmt.Errorf("kafka: %s partition %d offset %d is not a MessagePersisted event: %v", f.topic, r.Partition, r.Offset, err))
				return
			}
			p := ev.Payload
			batch = append(batch, &gateway.Message{
				ChatID: p.ChatID, Sequence: p.Sequence, MessageID: p.MessageID, SenderID: p.SenderID,
				Content: p.Content, ContentType: p.ContentType, CreatedAt: p.CreatedAt, ContentGiven: true,
			})
		})
		if len(batch) > 0 {
			f.sink.Deliver(ctx, batch)
			f.records.Add(uint64(len(batch)))
			clear(batch) // the sink keeps the messages; the feed keeps none
		}
		f.mu.Lock()
		for p, o := range read {
			f.next[p] = max(f.next[p], o)
		}
		f.mu.Unlock()
	}
}

func (f *Feed) setErr(err error) {
	f.mu.Lock()
	f.lastErr = err
	f.mu.Unlock()
}

// Position is, per partition, the offset after the last record read: a
// topic trimmed up to it loses nothing the feed has not read.
func (f *Feed) Position() map[int32]int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[int32]int64, len(f.next))
	for p, o := range f.next {
		out[p] = o
	}
	return out
}

// Stats reads the feed's counters.
func (f *Feed) Stats() FeedStats {
	f.mu.Lock()
	last := f.lastErr
	f.mu.Unlock()
	return FeedStats{Records: f.records.Load(), Undecodable: f.undecodable.Load(), FetchErrors: f.fetchErrors.Load(), LastError: last}
}

// Caught reports whether the feed has read up to ends (per partition, an
// offset as EndOffsets gives it).
func (f *Feed) Caught(ends map[int32]int64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for p, end := range ends {
		if f.next[p] < end {
			return false
		}
	}
	return true
}

// WaitCaughtUp returns once the feed has read, and handed to its sink,
// everything the topic held at the call: a run's settle waits for it
// before its last catch-up.
func (f *Feed) WaitCaughtUp(ctx context.Context) error {
	listed, err := kadm.NewClient(f.client).ListEndOffsets(ctx, f.topic)
	if err == nil {
		err = listed.Error()
	}
	if err != nil {
		return fmt.Errorf("kafka: end offsets of %s: %w", f.topic, err)
	}
	ends := map[int32]int64{}
	listed.Each(func(o kadm.ListedOffset) { ends[o.Partition] = o.Offset })
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !f.Caught(ends) {
		select {
		case <-ctx.Done():
			return fmt.Errorf("kafka: the feed of %s did not catch up: %w", f.topic, errors.Join(ctx.Err(), f.Stats().LastError))
		case <-f.done:
			return fmt.Errorf("kafka: the feed of %s stopped", f.topic)
		case <-tick.C:
		}
	}
	return nil
}

// Close stops the feed.
func (f *Feed) Close() {
	f.once.Do(func() {
		f.cancel()
		<-f.done
		f.client.Close()
	})
}
