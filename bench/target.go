package bench

import (
	"time"

	"github.com/chatseq/chatseq/gateway"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/target"
)

// TargetEnv is what a run of c tells the target it builds: the settings a
// design reads, the run's publisher (nil: Kafka off) and its clock.
func (c Config) TargetEnv(pub sequencer.Publisher, elapsed func() time.Duration) target.Env {
	return target.Env{
		Variant: c.CoreVariant(), Strategy: c.Strategy, RepublishOnReplay: c.RepublishOnReplay,
		Writers: c.Writers, Readers: c.Readers, MaxAttempts: c.MaxAttempts, RetryBackoff: c.RetryBackoff,
		Seed: c.Seed, PublishFail: c.Faults.PublishFail, Timed: c.Timed,
		Publisher: pub, Elapsed: elapsed,
	}
}

// CoreVariant is the variant the target's design runs: Variant, unless it
// names a broken push gateway (gateway.BrokenVariants), which the run's
// in-process push channel runs instead (GatewayVariant).
func (c Config) CoreVariant() sequencer.Variant {
	if gateway.IsVariant(string(c.Variant)) {
		return sequencer.Correct
	}
	return c.Variant
}

// GatewayVariant is the broken push gateway Variant names, or "".
func (c Config) GatewayVariant() gateway.Variant {
	if gateway.IsVariant(string(c.Variant)) {
		return gateway.Variant(c.Variant)
	}
	return ""
}
