package report

import (
	"fmt"

	"github.com/chatseq/chatseq/bench"
)

// Schedule is an open loop's lateness (bench.Lateness): the operations
// that started more than late_threshold_ms after their intended start,
// and the intended starts due before the run ended that were never made.
// Warning says the rate was not kept, "" when it was.
type Schedule struct {
	Rate            float64 `json:"rate_ops_s"`
	Stages          string  `json:"stages,omitempty"` // --stages, when the rate ramped (Rate 0)
	Started         int64   `json:"started"`
	LateStarts      int64   `json:"late_starts"`
	LateThresholdMs float64 `json:"late_threshold_ms"`
	MaxLagMs        float64 `json:"max_lag_ms"`
	Unsent          int64   `json:"unsent"`
	Warning         string  `json:"warning,omitempty"`
}

func scheduleOf(res *bench.Result) *Schedule {
	l := res.Lateness
	s := &Schedule{
		Rate: res.Config.Rate, Stages: bench.StagesString(res.Config.Stages), Started: l.Started, LateStarts: l.Late, Unsent: l.Unsent,
		LateThresholdMs: ms(int64(l.Threshold)), MaxLagMs: ms(int64(l.MaxLag)),
	}
	if l.FellBehind() {
		rate, late, lower := "its rate of "+formatRate(res.Config.Rate)+" ops/s", fms(s.LateThresholdMs), "a lower --rate"
		if s.Stages != "" {
			// The interval changes with the rate: late_threshold_ms is the largest.
			rate, late, lower = "the rates of its stages "+s.Stages, "their writer's interval there (at least 1ms)", "lower --stages rates"
		}
		s.Warning = fmt.Sprintf("the open loop did not keep %s: %d of %d operations started more than %s after their intended start (the latest %s after), and %d due before the run ended were never sent; latencies count from the intended start, so they include a late start's wait, while a start never sent has no latency (unsent_starts counts it). More --writers, or %s, keeps it",
			rate, l.Late, l.Started, late, fms(s.MaxLagMs), l.Unsent, lower)
	}
	return s
}
