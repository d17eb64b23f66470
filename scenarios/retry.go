package scenarios

import (
	"context"
	"slices"
	"time"
)

// maxRetries bounds a scenario's retries key: a threshold that needs more
// tries than this is not measuring the code.
const maxRetries = 10

// Attempt is one earlier run of a scenario that was run again (chatseq run
// --retries): what it measured and why it did not pass, kept so that a
// report shows every attempt, not only the one that counted.
type Attempt struct {
	Number     int               `json:"try"` // 1 for the first run
	Verdict    Verdict           `json:"verdict"`
	Seed       int64             `json:"seed"`
	ElapsedS   float64           `json:"elapsed_s"`
	Figures    Figures           `json:"figures"`
	Thresholds []ThresholdResult `json:"thresholds"`
	Problems   []string          `json:"problems"`
}

// Retryable reports whether a retry may run the scenario again: only when
// its invariants came out exactly as expected, none undecided, and only
// thresholds failed (throughput and latency bend with what else the
// machine runs; the invariants do not). A correctness failure, an
// undecided invariant or a run that could not be carried out is never run
// again: another try could hide it behind a pass.
func (o *Outcome) Retryable() bool {
	return o.Verdict == ThresholdFail && len(o.Failing) == 0 && o.Err == nil && o.Shrunk == nil
}

// attempt is o as an earlier attempt numbered n.
func (o *Outcome) attempt(n int) Attempt {
	a := Attempt{
		Number: n, Verdict: o.Verdict, Seed: o.Config.Seed, ElapsedS: o.Elapsed.Seconds(), Figures: o.Figures,
		Thresholds: slices.Clone(o.Thresholds), Problems: nonNil(slices.Clone(o.Problems)),
	}
	if a.Thresholds == nil {
		a.Thresholds = []ThresholdResult{}
	}
	return a
}

// RunRetrying runs a scenario, then runs it again, with the same seed and
// overrides, up to retries more times while it fails only its thresholds
// (Retryable). The outcome is the last attempt's, its earlier attempts in
// Attempts; progress, if set, is told of every attempt as it ends and
// whether it will be run again.
func RunRetrying(ctx context.Context, sc *Scenario, opts Options, retries int, progress func(try int, o *Outcome, again bool)) *Outcome {
	return retry(ctx, retries, func() *Outcome { return Run(ctx, sc, opts) }, progress)
}

// retry is RunRetrying's loop over any way of making an attempt.
func retry(ctx context.Context, retries int, run func() *Outcome, progress func(int, *Outcome, bool)) *Outcome {
	var earlier []Attempt
	for n := 1; ; n++ {
		o := run()
		again := n <= retries && o.Retryable() && ctx.Err() == nil
		if progress != nil {
			progress(n, o, again)
		}
		if !again {
			o.Attempts = earlier
			return o
		}
		earlier = append(earlier, o.attempt(n))
	}
}

// Tries is how many times the scenario ran: 1 unless it was retried.
func (o *Outcome) Tries() int { return len(o.Attempts) + 1 }

// TotalElapsed is the time every attempt took together.
func (o *Outcome) TotalElapsed() time.Duration {
	d := o.Elapsed
	for _, a := range o.Attempts {
		d += time.Duration(a.ElapsedS * float64(time.Second))
	}
	return d
}
