package serve

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/chatseq/chatseq/sequencer"
)

// errKafkaOutage is every produce's error inside an outage the test
// hook asked for (httpapi.KafkaOutagePath).
var errKafkaOutage = errors.New("kafka outage (test hook)")

// outagePublisher fails every produce until the end of the last outage
// asked for, as an unreachable cluster fails them: the serve side of
// bench's kafka_outage against --target http, where the server, not
// bench, publishes.
type outagePublisher struct {
	inner sequencer.Publisher
	until atomic.Int64 // unix nanoseconds; produces before it fail
}

func (p *outagePublisher) Publish(ctx context.Context, ev sequencer.MessagePersisted) error {
	if time.Now().UnixNano() < p.until.Load() {
		return errKafkaOutage
	}
	return p.inner.Publish(ctx, ev)
}

// outage fails the produces from now for d (an outage asked during
// another one ends at the later end).
func (p *outagePublisher) outage(d time.Duration) {
	end := time.Now().Add(d).UnixNano()
	for {
		cur := p.until.Load()
		if cur >= end || p.until.CompareAndSwap(cur, end) {
			return
		}
	}
}
