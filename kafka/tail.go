package kafka

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Tail reads a topic's events while a run is still producing them, so that
// what the topic held is known when the run ends without reading it all
// back then. On a cluster that is the run's own (the embedded one), it also
// deletes what it has read (Kafka's DeleteRecords): the in-process broker
// otherwise holds every record of the run in memory, about 1.5 KB each, and
// a long run would grow by tens of megabytes a second for it. A user's
// cluster is never trimmed.
type Tail struct {
	client *kgo.Client
	adm    *kadm.Client
	topic  string
	trim   bool

	mu     sync.Mutex
	events eventStore
	next   map[int32]int64 // per partition: the offset after the last one read
	err    error           // the first failure; ends the tail
	cond   *sync.Cond      // signalled when next advances or err is set

	// holds are other readers of the topic (a Feed's Position): the
	// tail never trims past where they have read.
	holds []func() map[int32]int64

	cancel   context.CancelFunc
	done     chan struct{}
	stopOnce sync.Once
}

// trimEvery is how often a trimming tail deletes what it has read.
const trimEvery = time.Second

// StartTail consumes every partition of topic from the offsets in from (a
// partition not named starts at 0). With trim, records it has read are
// deleted from the topic as it goes.
func StartTail(ctx context.Context, brokers []string, topic string, from map[int32]int64, trim bool) (*Tail, error) {
	ends, err := EndOffsets(ctx, brokers, topic)
	if err != nil {
		return nil, err
	}
	starts := map[int32]kgo.Offset{}
	next := map[int32]int64{}
	for p := range ends {
		starts[p] = kgo.NewOffset().At(from[p])
		next[p] = from[p]
	}
	client, err := kgo.NewClient(append(committedReads(),
		kgo.SeedBrokers(brokers...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: starts}),
		kgo.FetchMaxWait(50*time.Millisecond),
	)...)
	if err != nil {
		return nil, fmt.Errorf("kafka: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	t := &Tail{client: client, adm: kadm.NewClient(client), topic: topic, trim: trim, next: next, cancel: cancel, done: make(chan struct{})}
	t.cond = sync.NewCond(&t.mu)
	go t.run(ctx)
	return t, nil
}

func (t *Tail) run(ctx context.Context) {
	defer close(t.done)
	lastTrim := time.Now()
	trimmed := map[int32]int64{}
	for {
		fetches := t.client.PollFetches(ctx)
		if ctx.Err() != nil {
			return
		}
		var fetchErr error
		fetches.EachError(func(_ string, _ int32, err error) { fetchErr = errors.Join(fetchErr, err) })
		var batch []Event
		var decodeErr error
		read := map[int32]int64{}
		fetches.EachRecord(func(r *kgo.Record) {
			read[r.Partition] = max(read[r.Partition], r.Offset+1)
			e, ok, err := eventOf(t.topic, r)
			if err != nil {
				decodeErr = err
			} else if ok {
				batch = append(batch, e)
			}
		})
		t.mu.Lock()
		for _, e := range batch {
			t.events.add(e)
		}
		for p, o := range read {
			t.next[p] = max(t.next[p], o)
		}
		if err := errors.Join(fetchErr, decodeErr); err != nil && t.err == nil {
			t.err = fmt.Errorf("kafka: reading %s: %w", t.topic, err)
		}
		failed := t.err != nil
		var upTo map[int32]int64
		if t.trim && time.Since(lastTrim) >= trimEvery {
			upTo = maps.Clone(t.next)
		}
		holds := t.holds
		t.cond.Broadcast()
		t.mu.Unlock()
		for _, hold := range holds {
			at := hold()
			for p, o := range upTo {
				upTo[p] = min(o, at[p])
			}
		}
		for p, o := range upTo {
			if o <= trimmed[p] {
				delete(upTo, p)
			}
		}
		if failed {
			return
		}
		if len(upTo) > 0 {
			lastTrim = time.Now()
			if err := t.deleteUpTo(ctx, upTo); err != nil && ctx.Err() == nil {
				t.fail(err)
				return
			}
			for p, o := range upTo {
				trimmed[p] = o
			}
		}
	}
}

// HoldTrim keeps a trimming tail from deleting what another reader of the
// topic has not read yet: pos says, per partition, the offset it has read
// up to (Feed.Position). A partition pos does not name is not trimmed.
func (t *Tail) HoldTrim(pos func() map[int32]int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.holds = append(t.holds, pos)
}

func (t *Tail) deleteUpTo(ctx context.Context, upTo map[int32]int64) error {
	var offs kadm.Offsets
	for p, o := range upTo {
		offs.AddOffset(t.topic, p, o, -1)
	}
	resp, err := t.adm.DeleteRecords(ctx, offs)
	if err != nil {
		return fmt.Errorf("kafka: trimming %s: %w", t.topic, err)
	}
	return resp.Error()
}

func (t *Tail) fail(err error) {
	t.mu.Lock()
	if t.err == nil {
		t.err = err
	}
	t.cond.Broadcast()
	t.mu.Unlock()
}

// Finish reads on up to the topic's end offsets as of the call, stops the
// tail and returns every event read, in partition and offset order.
func (t *Tail) Finish(ctx context.Context) (Events, error) {
	defer t.stop()
	want, err := committedEnds(ctx, t.client, t.topic)
	if err != nil {
		return Events{}, err
	}
	stopWaiting := context.AfterFunc(ctx, func() { t.fail(fmt.Errorf("kafka: reading %s: %w", t.topic, ctx.Err())) })
	defer stopWaiting()
	t.mu.Lock()
	defer t.mu.Unlock()
	for t.err == nil && !t.reached(want) {
		t.cond.Wait()
	}
	if t.err != nil {
		return Events{}, t.err
	}
	// Records past the end offsets (produced after the call) are not this
	// run's.
	read := t.events
	t.events = eventStore{}
	return read.sorted(want), nil
}

func (t *Tail) reached(want map[int32]int64) bool {
	for p, end := range want {
		if t.next[p] < end {
			return false
		}
	}
	return true
}

// stop ends the tail and closes its client.
func (t *Tail) stop() {
	t.stopOnce.Do(func() {
		t.cancel()
		<-t.done
		t.client.Close()
	})
}

// Close stops a tail that will not be finished (a run that failed).
func (t *Tail) Close() { t.stop() }
