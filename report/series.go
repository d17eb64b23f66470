package report

import (
	"fmt"
	"math"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/chatseq/chatseq/bench"
)

// maxChartPoints bounds the points a chart over time draws: a long run's
// intervals are drawn in bins of several. A run recorded at
// bench.FineInterval holds fewer intervals than this (it coarsens past
// bench.MaxFineIntervals), so only runs of one-second intervals, those the
// hlog holds as they are, are ever binned. A variable so that a test can
// bin a short run.
var maxChartPoints = 1000

// binSize is how many intervals one chart point covers.
func binSize(intervals int) int { return max(1, (intervals+maxChartPoints-1)/maxChartPoints) }

// latencySeries is what the report draws of the interval histograms: p50,
// p99 and max of each step per chart bin, and each step's whole-run
// distribution. It is built one histogram at a time, so a long run never
// holds its dense histograms at once.
type latencySeries struct {
	bins, binSize int
	// fromHistograms: the points are read off the histograms added (a
	// binned run, or a results.json older than per-interval percentiles),
	// not off results.json's intervals.
	fromHistograms bool
	steps          map[string]*stepLatency
}

type stepLatency struct {
	p50, p99, max []*float64 // milliseconds; nil where the step recorded nothing
	total         *hdrhistogram.Histogram
	// The bin being merged (binSize > 1), and its index.
	bin   *hdrhistogram.Histogram
	binAt int
}

// newLatencySeries draws intervals in bins of binSize.
func newLatencySeries(intervals, binSize int) *latencySeries {
	bins := (intervals + binSize - 1) / binSize
	s := &latencySeries{bins: bins, binSize: binSize, fromHistograms: binSize > 1, steps: map[string]*stepLatency{}}
	for _, step := range bench.Steps() {
		s.steps[step.String()] = &stepLatency{
			p50: make([]*float64, bins), p99: make([]*float64, bins), max: make([]*float64, bins), binAt: -1,
		}
	}
	return s
}

// add takes interval i's histogram of step, in interval order; h may be
// reused afterwards. Only binned series (binSize > 1) take their points
// from it: otherwise fromIntervals gives them.
func (s *latencySeries) add(i int, step string, h *hdrhistogram.Histogram) error {
	sl, ok := s.steps[step]
	if !ok {
		return fmt.Errorf("unknown step tag %q (known: %s)", step, stepTags())
	}
	if b := i / s.binSize; b >= s.bins {
		return fmt.Errorf("%s histogram for interval %d, but the run has %d intervals", step, i, s.bins*s.binSize)
	}
	if h.TotalCount() == 0 {
		return nil
	}
	if sl.total == nil {
		sl.total = hdrhistogram.New(h.LowestTrackableValue(), h.HighestTrackableValue(), int(h.SignificantFigures()))
	}
	sl.total.Merge(h)
	if !s.fromHistograms {
		return nil
	}
	if b := i / s.binSize; b != sl.binAt {
		sl.closeBin()
		if sl.bin == nil {
			sl.bin = hdrhistogram.New(h.LowestTrackableValue(), h.HighestTrackableValue(), int(h.SignificantFigures()))
		}
		sl.binAt = b
	}
	sl.bin.Merge(h)
	return nil
}

// closeBin draws the bin being merged.
func (sl *stepLatency) closeBin() {
	if sl.bin == nil || sl.binAt < 0 || sl.bin.TotalCount() == 0 {
		return
	}
	sl.p50[sl.binAt] = msPtr(sl.bin.ValueAtQuantile(50))
	sl.p99[sl.binAt] = msPtr(sl.bin.ValueAtQuantile(99))
	sl.max[sl.binAt] = msPtr(sl.bin.Max())
	sl.bin.Reset()
}

// finish draws the last bins (binned), or takes every point from the
// intervals' own percentiles in results.json.
func (s *latencySeries) finish(ivs []IntervalCounts) {
	for name, sl := range s.steps {
		if s.fromHistograms {
			sl.closeBin()
			continue
		}
		for i, iv := range ivs {
			if l, ok := iv.Latency[name]; ok && l.Count > 0 && i < s.bins {
				sl.p50[i], sl.p99[i], sl.max[i] = float64Ptr(l.P50), float64Ptr(l.P99), float64Ptr(l.Max)
			}
		}
	}
}

func msPtr(ns int64) *float64 { return float64Ptr(ms(ns)) }

func float64Ptr(v float64) *float64 { return &v }

// seriesFromIntervals reads a run's intervals as they are in memory. Each
// sparse histogram is expanded into a dense one first, the form the log
// reader returns, so both paths compute percentiles the same way.
func seriesFromIntervals(ivs []bench.Interval, counts []IntervalCounts) (*latencySeries, error) {
	s := newLatencySeries(len(ivs), binSize(len(ivs)))
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
				return nil, fmt.Errorf("%s, interval %d: %d values out of range", step, i, dropped)
			}
			if err := s.add(i, step.String(), scratch); err != nil {
				return nil, err
			}
		}
	}
	s.finish(counts)
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
