package bench

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/target"
)

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
	outages []target.TimedFault
}

var errKafkaOutage = fmt.Errorf("kafka outage (scheduled fault)")

func (p *outagePublisher) Publish(ctx context.Context, ev sequencer.MessagePersisted) error {
	el := p.elapsed()
	for _, o := range p.outages {
		if o.Active(el) {
			return errKafkaOutage
		}
	}
	return p.inner.Publish(ctx, ev)
}

// scheduleCounterDeletions deletes counters at their times until ctx ends.
func scheduleCounterDeletions(ctx context.Context, t target.Target, cfg Config) {
	for _, f := range cfg.Timed {
		if f.Kind != target.DeleteCounter {
			continue
		}
		go func(f target.TimedFault) {
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
