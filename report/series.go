package report

import (
	"fmt"
	"math"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/chatseq/chatseq/bench"
)

// latencySeries is what the report draws of the per-second histograms:
// p50, p99 and max of each step per interval, and each step's whole-run
// distribution. It is built one histogram at a time, so a long run never
// holds its dense histograms at once.
type latencySeries struct {
	intervals int
	steps     map[string]*stepLatency
}

type stepLatency struct {
	p50, p99, max []*float64 // milliseconds; nil where the step recorded nothing
	total         *hdrhistogram.Histogram
}

func newLatencySeries(intervals int) *latencySeries {
	s := &latencySeries{intervals: intervals, steps: map[string]*stepLatency{}}
	for _, step := range bench.Steps() {
		s.steps[step.String()] = &stepLatency{
			p50: make([]*float64, intervals), p99: make([]*float64, intervals), max: make([]*float64, intervals),
		}
	}
	return s
}

// add takes interval i's histogram of step; h may be reused afterwards.
func (s *latencySeries) add(i int, step string, h *hdrhistogram.Histogram) error {
	sl, ok := s.steps[step]
	if !ok {
		return fmt.Errorf("unknown step tag %q (known: %s)", step, stepTags())
	}
	if i >= s.intervals {
		return fmt.Errorf("%s histogram for second %d, but the run has %d intervals", step, i, s.intervals)
	}
	if h.TotalCount() == 0 {
		return nil
	}
	if sl.total == nil {
		sl.total = hdrhistogram.New(h.LowestTrackableValue(), h.HighestTrackableValue(), int(h.SignificantFigures()))
	}
	sl.total.Merge(h)
	sl.p50[i] = msPtr(h.ValueAtQuantile(50))
	sl.p99[i] = msPtr(h.ValueAtQuantile(99))
	sl.max[i] = msPtr(h.Max())
	return nil
}

func msPtr(ns int64) *float64 {
	v := ms(ns)
	return &v
}

// seriesFromIntervals reads a run's intervals as they are in memory. Each
// sparse histogram is expanded into a dense one first, the form the log
// reader returns, so both paths compute percentiles the same way.
func seriesFromIntervals(ivs []bench.Interval) (*latencySeries, error) {
	s := newLatencySeries(len(ivs))
	var scratch *hdrhistogram.Histogram
	for i, iv := range ivs {
		for _, step := range bench.Steps() {
			p := iv.Latency[step]
			if p == nil || p.TotalCount() == 0 {
				continue
			}
			if scratch == nil {
				scratch = hdrhistogram.New(p.LowestTrackableValue(), p.HighestTrackableValue(), int(p.SignificantFigures()))
			} else {
				scratch.Reset()
			}
			if dropped := p.MergeInto(scratch); dropped > 0 {
				return nil, fmt.Errorf("%s, second %d: %d values out of range", step, i, dropped)
			}
			if err := s.add(i, step.String(), scratch); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

// distributionPoints are the percentiles the distribution chart plots:
// 100·(1 − 10^(−k/10)) for k = 0…50, evenly spaced on the chart's
// 1/(1−q) log axis from 0% to 99.999%.
func distributionPoints() (x, quantiles []float64) {
	for k := 0; k <= 50; k++ {
		inv := math.Pow(10, float64(k)/10)
		x = append(x, inv)
		quantiles = append(quantiles, 100*(1-1/inv))
	}
	return x, quantiles
}
