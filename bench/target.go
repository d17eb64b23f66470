package bench

import (
	"time"

	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/target"
)

// TargetEnv is what a run of c tells the target it builds: the settings a
// design reads, the run's publisher (nil: Kafka off) and its clock.
func (c Config) TargetEnv(pub sequencer.Publisher, elapsed func() time.Duration) target.Env {
	return target.Env{
		Variant: c.Variant, Strategy: c.Strategy, RepublishOnReplay: c.RepublishOnReplay,
		Writers: c.Writers, Readers: c.Readers, MaxAttempts: c.MaxAttempts, RetryBackoff: c.RetryBackoff,
		Seed: c.Seed, PublishFail: c.Faults.PublishFail, Timed: c.Timed,
		Publisher: pub, Elapsed: elapsed,
	}
}
