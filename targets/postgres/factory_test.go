package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/sequencer"
)

type discardPublisher struct{}

func (discardPublisher) Publish(context.Context, sequencer.MessagePersisted) error { return nil }

// A factory shared by several runs (chatseq run's target cache) gives each
// run the relay crash rate of its own faults, not the first run's.
func TestSharedFactoryTakesEachRunsRelayCrashRate(t *testing.T) {
	factory := Factory(Config{DSN: cluster(t).DSN(), RelayCrash: -1})
	for _, rate := range []float64{0, 0.25} {
		cfg := bench.DefaultConfig()
		cfg.Faults.PublishFail = rate
		tgt, err := factory(context.Background(), cfg.TargetEnv(discardPublisher{}, func() time.Duration { return 0 }))
		if err != nil {
			t.Fatal(err)
		}
		got := tgt.(*target).relay.crash
		if err := tgt.Close(); err != nil {
			t.Fatal(err)
		}
		if got != rate {
			t.Fatalf("run with publish_fail %v got relay crash rate %v", rate, got)
		}
	}
}
