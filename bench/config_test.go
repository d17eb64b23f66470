package bench

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/target"
)

// TestRateProblems: an open-loop rate runs as asked or is refused; it is
// never quietly a closed loop (NaN, Inf, a rate too high for a nanosecond
// interval, one too low for the interval to fit the clock) nor only each
// writer's first operation (an interval past the run's duration).
func TestRateProblems(t *testing.T) {
	for _, c := range []struct {
		rate     float64
		writers  int
		duration time.Duration
		ops      int
		want     string // "" when the rate runs
	}{
		{0, 8, 3 * time.Second, 0, ""},
		{1000, 8, 3 * time.Second, 0, ""},
		{3, 8, 3 * time.Second, 0, ""},   // 2.67s apart: two operations each
		{0.001, 1, 0, 10, ""},            // slow, but ops-bound: 10000s
		{8e9, 8, 3 * time.Second, 0, ""}, // 1ns apart
		{math.NaN(), 8, 3 * time.Second, 0, "must be a finite number"},
		{math.Inf(1), 8, 3 * time.Second, 0, "must be a finite number"},
		{math.Inf(-1), 8, 3 * time.Second, 0, "must be a finite number"},
		{-3, 8, 3 * time.Second, 0, "must not be negative"},
		{9e9, 8, 3 * time.Second, 0, "under a nanosecond between one writer's operations: the most is 8e+09 operations/s"},
		{1e-12, 8, 300 * time.Millisecond, 0, "8e+12s apart, no sooner than the run's 300ms ends"},
		{2.5, 8, 3 * time.Second, 0, "3.2s apart, no sooner than the run's 3s ends: each writer would send at most its first; give more than 2.67 operations/s"},
		{1, 1, time.Second, 0, "give more than 1 operations/s"},
		{1e-12, 8, 0, 100, "would take 1.04e+14s for 100 operations, more than the clock can count"},
	} {
		got := RateProblem(c.rate, c.writers, c.duration, c.ops)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("rate %g, %d writers, duration %s, ops %d: got %q, want %q", c.rate, c.writers, c.duration, c.ops, got, c.want)
		}
	}
}

func TestValidateRefusesABadRate(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Rate = math.NaN()
	if err := cfg.Validate(); err == nil || !strings.HasPrefix(err.Error(), "--rate NaN must be a finite number") {
		t.Errorf("--rate NaN: %v", err)
	}
	cfg.Rate, cfg.Writers = 1000, 8
	if err := cfg.Validate(); err != nil {
		t.Errorf("--rate 1000: %v", err)
	}
	if got, want := cfg.Interval(), 8*time.Millisecond; got != want {
		t.Errorf("interval of 1000 ops/s over 8 writers: %s, want %s", got, want)
	}
}

// A timed fault that outlasts the run would hold it (a stall holds every
// call in flight until it ends, a latency every call for as long), or never
// happen; each is refused, naming the fault, before the run starts.
func TestValidateRefusesAFaultThatOutlastsTheRun(t *testing.T) {
	for _, c := range []struct {
		fault    target.TimedFault
		duration time.Duration
		want     string // "" when the fault fits
	}{
		{target.TimedFault{Kind: target.StoreStall, At: 100 * time.Millisecond, For: 200 * time.Millisecond}, 300 * time.Millisecond, ""},
		{target.TimedFault{Kind: target.StoreStall, At: 0, For: time.Hour}, 300 * time.Millisecond, "store_stall from 0s to 1h0m0s outlasts the 300ms run"},
		{target.TimedFault{Kind: target.StoreStall, At: 0, For: time.Hour}, 0, ""}, // --ops alone: an hour is allowed
		{target.TimedFault{Kind: target.StoreStall, At: 0, For: time.Hour + 1}, 0, "outlasts the 1h0m0s a run without --duration allows"},
		{target.TimedFault{Kind: target.StoreStall, At: time.Second, For: math.MaxInt64}, 300 * time.Millisecond, "store_stall at 1s for 2562047h47m16.854775807s ends beyond the clock's range"},
		{target.TimedFault{Kind: target.StoreLatency, At: 0, For: 10 * time.Second, Latency: time.Millisecond}, time.Second, ""}, // a window past the end only slows the last calls
		{target.TimedFault{Kind: target.StoreLatency, At: 0, For: time.Second, Latency: 2562047 * time.Hour}, 300 * time.Millisecond, "store_latency at 0s delays each store call by 2562047h0m0s, longer than the 300ms run"},
		{target.TimedFault{Kind: target.StoreLatency, At: 0, For: time.Second, Latency: 2562047 * time.Hour}, 0, "longer than the 1h0m0s a run without --duration allows"},
		{target.TimedFault{Kind: target.KafkaOutage, At: 2 * time.Second, For: time.Second}, time.Second, "kafka_outage at 2s starts when the 1s run is over: it would never happen"},
	} {
		cfg := DefaultConfig()
		cfg.Duration, cfg.Ops, cfg.Timed = c.duration, 100, []target.TimedFault{c.fault}
		err := cfg.Validate()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v in a run of %s: %v, want %q", c.fault, c.duration, err, c.want)
		}
	}
}

// A variant_on window of a variant the strategy lacks is refused, as
// --broken is: the window would run the correct core and look like a pass.
func TestValidateRefusesAVariantWindowTheStrategyLacks(t *testing.T) {
	for _, c := range []struct {
		strategy sequencer.Strategy
		variant  sequencer.Variant
		want     string // "" when the window can go wrong
	}{
		{sequencer.TwoPhase, sequencer.AckBeforePersist, ""},
		{sequencer.TwoPhase, sequencer.RacyCounter, ""},
		{sequencer.Optimistic, sequencer.AckBeforePersist, "variant_on at 1s with strategy occ: ack-before-persist"},
		{sequencer.Optimistic, sequencer.RacyCounter, "variant_on at 1s with strategy occ: racy-counter"},
	} {
		cfg := DefaultConfig()
		cfg.Duration, cfg.Strategy = 3*time.Second, c.strategy
		cfg.Timed = []target.TimedFault{{Kind: target.VariantOn, At: time.Second, For: time.Second, Variant: string(c.variant)}}
		err := cfg.Validate()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s window under %s: %v, want %q", c.variant, c.strategy, err, c.want)
		}
	}
}

// A window of the variant the core already runs throughout changes
// nothing, and is refused; one of another variant switches it.
func TestValidateRefusesAWindowOfTheCoresOwnVariant(t *testing.T) {
	for _, c := range []struct {
		window sequencer.Variant
		want   string
	}{
		{sequencer.RacyCounter, "variant_on racy-counter at 1s changes nothing: the core runs racy-counter throughout"},
		{sequencer.AckBeforePersist, ""},
	} {
		cfg := DefaultConfig()
		cfg.Duration, cfg.Variant = 3*time.Second, sequencer.RacyCounter
		cfg.Timed = []target.TimedFault{{Kind: target.VariantOn, At: time.Second, For: time.Second, Variant: string(c.window)}}
		err := cfg.Validate()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("a %s window over a racy-counter core: %v, want %q", c.window, err, c.want)
		}
	}
}

// The late-commit settings are refused when they cannot do what they say.
func TestLateCommitSettingsProblems(t *testing.T) {
	for _, c := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Faults.SlowCommit = 0.02 }, ""},
		{func(c *Config) { c.Faults.SlowCommit = 1.5 }, "--slow-commit is a probability"},
		{func(c *Config) { c.Faults.SlowCommit, c.Strategy = 0.02, sequencer.Optimistic }, "use strategy two-phase"},
		{func(c *Config) { c.Faults.SlowCommitDelay = -time.Second }, "--slow-commit-delay must not be negative"},
		{func(c *Config) {
			c.Receivers, c.DropConnectionsEvery, c.DropConnectionsFor = 4, time.Second, 500*time.Millisecond
			c.Duration = 5 * time.Second
		}, ""},
		// Each strike leaves the devices' last connections 2 s after they
		// are back (stream_completeness): a run too short for one.
		{func(c *Config) {
			c.Receivers, c.DropConnectionsEvery, c.DropConnectionsFor = 4, time.Second, 500*time.Millisecond
		}, "never strikes in a 3s run"},
		{func(c *Config) { c.Receivers, c.DropConnectionsFor = 4, time.Second }, "give --drop-connections-every too"},
		{func(c *Config) {
			c.Receivers, c.DropConnectionsEvery, c.DropConnectionsFor = 4, time.Second, time.Second
		}, "must be shorter than"},
		{func(c *Config) {
			c.Receivers, c.DropConnectionsEvery, c.DropConnectionsFor = 4, time.Second, -time.Second
		}, "must not be negative"},
		{func(c *Config) { c.Variant = "gateway-foreign-push" }, "give --receivers too"},
		{func(c *Config) { c.Variant, c.Receivers = "gateway-foreign-push", 4 }, ""},
	} {
		cfg := DefaultConfig()
		c.edit(&cfg)
		err := cfg.Validate()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: got %v, want %q", cfg.Faults, err, c.want)
		}
	}
}

// Overlapping variant_on windows are refused: the core runs one variant
// at a time, so the later one would never run while both were open (a
// pass would read as the checker missing its bug). Windows one after
// the other are kept.
func TestValidateRefusesOverlappingVariantWindows(t *testing.T) {
	for _, c := range []struct {
		secondAt time.Duration
		want     string
	}{
		{time.Second, "variant_on unconditional-idempotency from 1s for 2s overlaps racy-counter from 1s for 2s"},
		{2 * time.Second, "overlaps racy-counter from 1s for 2s: the core runs one variant at a time"},
		{3 * time.Second, ""},
	} {
		cfg := DefaultConfig()
		cfg.Duration = 6 * time.Second
		cfg.Timed = []target.TimedFault{
			{Kind: target.VariantOn, At: time.Second, For: 2 * time.Second, Variant: string(sequencer.RacyCounter)},
			{Kind: target.VariantOn, At: c.secondAt, For: 2 * time.Second, Variant: string(sequencer.UnconditionalIdempotency)},
		}
		err := cfg.Validate()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("second window at %s: %v, want %q", c.secondAt, err, c.want)
		}
	}
}
