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
		Rate: res.Config.Rate, Started: l.Started, LateStarts: l.Late, Unsent: l.Unsent,
		LateThresholdMs: ms(int64(l.Threshold)), MaxLagMs: ms(int64(l.MaxLag)),
	}
	if l.FellBehind() {
		s.Warning = fmt.Sprintf("the open loop did not keep its rate of %s ops/s: %d of %d operations started more than %s after their intended start (the latest %s after), and %d due before the run ended were never sent; latencies count from the intended start, so they include that wait. More --writers, or a lower --rate, keeps it",
			formatRate(res.Config.Rate), l.Late, l.Started, fms(s.LateThresholdMs), fms(s.MaxLagMs), l.Unsent)
	}
	return s
}
