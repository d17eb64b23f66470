package bench_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/internal/evidence"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/target"
)

// A Kafka outage stalls the delivery plane: nothing is published, so
// nothing is pushed, while sends persist. When it ends, the writers'
// retries publish what they persisted (ADR-004 §10's republish on
// replay), the feed carries it to the devices, and every message still
// reaches every device: the delivery invariants pass, and the messages
// persisted during the outage reach their devices only after it.
func TestReceiversStallThroughAKafkaOutageThenCatchUp(t *testing.T) {
	const outage = 800 * time.Millisecond
	// A device's gap sync may bring a message persisted in the outage
	// before the outage ends: a run where none waited is no evidence
	// either way, and another seed runs.
	evidence.Rerun(t, evidence.Default, func(n int) string {
		cfg := receiverConfig(t, int64(n), 0)
		cfg.Ops, cfg.Duration = 0, 2*time.Second
		cfg.Timed = []target.TimedFault{{Kind: target.KafkaOutage, At: 300 * time.Millisecond, For: outage}}
		res, rep := checkedRun(t, cfg)
		requireDeliveryPass(t, rep)
		if res.Counts.ErrorCodes[sequencer.CodePublishFailed] == 0 {
			return fmt.Sprintf("a failed publish (the outage did not strike: %v)", res.Counts.ErrorCodes)
		}
		if r := res.Receivers; r.FullyVisible != res.Persisted {
			t.Errorf("%d of %d messages fully visible after the outage", r.FullyVisible, res.Persisted)
		}
		// A message persisted as the outage began waits for its end to
		// be pushed.
		if most := time.Duration(res.FanOut.Max()); most < outage*3/4 {
			return fmt.Sprintf("a fan-out that waited for the %s outage (the slowest took %s)", outage, most)
		}
		return ""
	})
}

// The receivers' scheduled nemeses: every connection dropped at a time,
// the devices offline for a while, then every device stalled (reading
// nothing, syncing nothing) for a window. Each reconnects and catches up,
// each stalled device reads what waited in its queue, and every message
// still reaches every device. The watermark design: under ADR-004 as
// written a drop may lose a late commit, which eventual_visibility rightly
// fails (targets/all).
func TestReceiversRecoverFromScheduledDropsAndStalls(t *testing.T) {
	const stall = 600 * time.Millisecond
	evidence.Rerun(t, evidence.Default, func(n int) string {
		cfg := receiverConfig(t, int64(n), 0)
		cfg.Variant = sequencer.SyncWatermark
		cfg.Ops, cfg.Duration = 0, 2500*time.Millisecond // the drop over 2 s before the end (target.LastConnectionOpen)
		cfg.Timed = []target.TimedFault{
			{Kind: target.DropConnections, At: 200 * time.Millisecond, For: 100 * time.Millisecond},
			{Kind: target.SlowReceivers, At: 600 * time.Millisecond, For: stall},
		}
		res, rep := checkedRun(t, cfg)
		requireDeliveryPass(t, rep)
		r := res.Receivers
		if r.Drops != int64(r.Devices) || r.Reconnects < int64(r.Devices) {
			t.Errorf("%d drops and %d reconnects of %d devices: want each dropped once and back", r.Drops, r.Reconnects, r.Devices)
		}
		if r.FullyVisible != res.Persisted {
			t.Errorf("%d of %d messages fully visible", r.FullyVisible, res.Persisted)
		}
		// A message pushed as the stall began waits for its end to be
		// read; a run where none was pushed then is no evidence.
		if most := time.Duration(res.FanOut.Max()); most < stall*3/4 {
			return fmt.Sprintf("a fan-out that waited for the %s stall (the slowest took %s)", stall, most)
		}
		return ""
	})
}

// The receivers' faults need receivers.
func TestReceiverFaultsNeedReceivers(t *testing.T) {
	for _, kind := range target.ReceiverKinds() {
		cfg := bench.DefaultConfig()
		cfg.Timed = []target.TimedFault{{Kind: kind, At: 500 * time.Millisecond, For: 500 * time.Millisecond}}
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "give --receivers too") {
			t.Errorf("%s without receivers: %v", kind, err)
		}
		cfg.Receivers = 2
		if err := cfg.Validate(); err != nil {
			t.Errorf("%s with receivers: %v", kind, err)
		}
	}
	for _, kind := range target.ReceiverKinds() {
		if err := (target.TimedFault{Kind: kind, At: time.Second}).Validate(1); err == nil {
			t.Errorf("%s without a duration was accepted", kind)
		}
	}
}
