package report

import (
	"fmt"
	"math"
	"slices"

	"golang.org/x/perf/benchmath"
)

// Metric names a comparison row's kind, for CompareOptions.Metrics.
const (
	MetricThroughput = "throughput"
	MetricGapRate    = "gap_rate"
	MetricVerdict    = "verdict"
)

// LatencyMetrics are the percentiles compared for every step. Each is a
// distribution over the run's intervals (the p99 of every interval), not
// the run's single p99.9 or max: one slow operation moves those by any
// amount between two runs of one command.
var LatencyMetrics = []string{"p50", "p90", "p99"}

// DefaultAlpha is the significance level of the Mann-Whitney U test, as
// benchstat's.
const DefaultAlpha = 0.05

// gapRateFloor is the smallest gap rate rise flagged, in absolute terms: a
// run with no gaps that gets one in ten thousand sequences is not a 100%
// regression worth failing a build on (the contract's gapless invariant
// judges designs that promise none).
const gapRateFloor = 0.001

// CompareOptions say what counts as a regression.
type CompareOptions struct {
	// Tolerance is the change of the median allowed before a significant
	// change regresses: 0.1 lets a p99 grow to ×1.10 and throughput fall
	// to ×0.90.
	Tolerance float64
	// Alpha is the significance level (DefaultAlpha when 0): a change
	// regresses only when the Mann-Whitney U test's p is below it.
	Alpha float64
	// MinLatencyChange (milliseconds) is the smallest rise of a latency
	// median that regresses, however significant: on a shared machine the
	// scheduler alone moves a step's per-interval percentiles by about a
	// timeslice between two runs of one command, which for a step of
	// microseconds is many times over.
	MinLatencyChange float64
	// Metrics and Steps, if set, limit the rows that can regress (all rows
	// are still shown): metric names from LatencyMetrics and the Metric
	// constants, step names from bench.Steps.
	Metrics, Steps []string
}

// Comparison is run B judged against baseline A, per target.
type Comparison struct {
	A           string             `json:"a"`
	B           string             `json:"b"`
	Verdict     string             `json:"verdict"` // VerdictRegression or VerdictNoRegression
	Regressions int                `json:"regressions"`
	Tolerance   float64            `json:"tolerance"`
	Alpha       float64            `json:"alpha"`
	MinChangeMs float64            `json:"min_latency_change_ms"`
	Settings    []SettingDiff      `json:"settings_differ"`
	Targets     []TargetComparison `json:"targets"`
}

// The comparison's verdicts.
const (
	VerdictRegression   = "regression"
	VerdictNoRegression = "no regression"
)

// TargetComparison is one target's rows.
type TargetComparison struct {
	Target string `json:"target"`
	// IntervalA and IntervalB are the runs' interval lengths in seconds:
	// the samples' unit.
	IntervalA float64         `json:"interval_a_s"`
	IntervalB float64         `json:"interval_b_s"`
	Rows      []ComparisonRow `json:"rows"`
}

// ComparisonRow is one metric of both runs: the medians of their
// per-interval samples (the whole run's figure for the verdict), their
// ratio B/A, and the Mann-Whitney U test's p that the two samples come
// from one distribution.
type ComparisonRow struct {
	Metric string `json:"metric"`
	Step   string `json:"step,omitempty"`
	Unit   string `json:"unit"` // ops/s, ms, ratio, or verdict
	// A and B are numbers, except for the verdict row (VerdictA, VerdictB).
	A        *float64 `json:"a,omitempty"`
	B        *float64 `json:"b,omitempty"`
	VerdictA string   `json:"verdict_a,omitempty"`
	VerdictB string   `json:"verdict_b,omitempty"`
	// Ratio is B/A, absent when A is 0.
	Ratio    *float64 `json:"ratio,omitempty"`
	P        *float64 `json:"p,omitempty"`
	SamplesA int      `json:"samples_a"`
	SamplesB int      `json:"samples_b"`
	// Significant: P is below alpha.
	Significant bool   `json:"significant"`
	Checked     bool   `json:"checked"`
	Regression  bool   `json:"regression"`
	Note        string `json:"note,omitempty"` // why a row could not be tested
}

// Compare judges b against the baseline a, target by target: pairs holds
// the runs to compare, A first.
func Compare(pairs [][2]Results, opt CompareOptions) Comparison {
	if opt.Alpha == 0 {
		opt.Alpha = DefaultAlpha
	}
	c := Comparison{Tolerance: opt.Tolerance, Alpha: opt.Alpha, MinChangeMs: opt.MinLatencyChange, Settings: []SettingDiff{}}
	for _, p := range pairs {
		c.Settings = append(c.Settings, SettingsDiffer(p[0], p[1])...)
		tc := compareRuns(p[0], p[1], opt)
		for _, r := range tc.Rows {
			if r.Regression {
				c.Regressions++
			}
		}
		c.Targets = append(c.Targets, tc)
	}
	c.Settings = slices.CompactFunc(c.Settings, func(x, y SettingDiff) bool { return x == y })
	c.Verdict = VerdictNoRegression
	if c.Regressions > 0 {
		c.Verdict = VerdictRegression
	}
	return c
}

func compareRuns(a, b Results, opt CompareOptions) TargetComparison {
	name := b.Run.Target
	if a.Run.Target != b.Run.Target {
		name = a.Run.Target + " → " + b.Run.Target
	}
	tc := TargetComparison{Target: name, IntervalA: a.IntervalS, IntervalB: b.IntervalS}
	add := func(row ComparisonRow, worse bool) {
		row.Checked = wanted(opt.Metrics, row.Metric) && (row.Step == "" || wanted(opt.Steps, row.Step))
		row.Regression = row.Checked && worse
		tc.Rows = append(tc.Rows, row)
	}

	row := sampleRow(MetricThroughput, "", "ops/s", throughputSamples(a), throughputSamples(b), opt.Alpha)
	add(row, row.Significant && row.Ratio != nil && *row.Ratio < 1-opt.Tolerance)

	for _, step := range latencySteps(a, b) {
		for _, m := range LatencyMetrics {
			row := sampleRow(m, step, "ms", latencySamples(a, step, m), latencySamples(b, step, m), opt.Alpha)
			if need, got := minCountFor(m), min(medianCount(a, step), medianCount(b, step)); got < need {
				// An interval's p99 of forty operations is their maximum:
				// one operation, not a distribution.
				row.P, row.Significant = nil, false
				row.Note = fmt.Sprintf("%d operations an interval: too few to estimate a %s (%d needed)", got, m, need)
			}
			add(row, row.Significant && row.Ratio != nil && *row.Ratio > 1+opt.Tolerance && *row.B-*row.A >= opt.MinLatencyChange)
		}
	}

	// The gap rate's samples are each interval's (by allocation); the
	// figures shown are the whole run's, the checker's, which a deleted
	// counter does not skew.
	row = sampleRow(MetricGapRate, "", "ratio", gapSamples(a), gapSamples(b), opt.Alpha)
	ga, gb := a.Check.Stats.GapRate, b.Check.Stats.GapRate
	row.A, row.B, row.Ratio = &ga, &gb, ratio(ga, gb)
	add(row, row.Significant && gb-ga > gapRateFloor && (row.Ratio == nil || *row.Ratio > 1+opt.Tolerance))

	va, vb := Verdict(a.Check), Verdict(b.Check)
	add(ComparisonRow{Metric: MetricVerdict, Unit: "verdict", VerdictA: va, VerdictB: vb}, verdictRank(vb) > verdictRank(va))
	return tc
}

// sampleRow compares two samples: their medians, ratio and the U test.
func sampleRow(metric, step, unit string, a, b []float64, alpha float64) ComparisonRow {
	row := ComparisonRow{Metric: metric, Step: step, Unit: unit, SamplesA: len(a), SamplesB: len(b)}
	if len(a) == 0 || len(b) == 0 {
		row.Note = "no per-interval samples"
		return row
	}
	ma, mb := median(a), median(b)
	row.A, row.B, row.Ratio = &ma, &mb, ratio(ma, mb)
	thresholds := benchmath.Thresholds{CompareAlpha: alpha}
	cmp := benchmath.AssumeNothing.Compare(benchmath.NewSample(a, &thresholds), benchmath.NewSample(b, &thresholds))
	if !math.IsNaN(cmp.P) {
		p := cmp.P
		row.P = &p
		row.Significant = p < alpha
	}
	if len(cmp.Warnings) > 0 {
		row.Note = cmp.Warnings[0].Error() // too few samples to ever reach alpha
	}
	return row
}

// minCountFor is the operations an interval needs for its percentile to
// be estimated, not read off one operation: five beyond it.
func minCountFor(metric string) int64 {
	switch metric {
	case "p50":
		return 10
	case "p90":
		return 50
	}
	return 500
}

// medianCount is the median number of operations of step an interval.
func medianCount(r Results, step string) int64 {
	var ns []float64
	for _, iv := range usable(r) {
		ns = append(ns, float64(iv.Latency[step].Count))
	}
	if len(ns) == 0 {
		return 0
	}
	return int64(median(ns))
}

// usable are the intervals that are samples: all but a last one of
// another length (the run's tail, a little longer or shorter).
func usable(r Results) []IntervalCounts {
	ivs := r.Intervals
	if n := len(ivs); n > 1 && math.Abs(ivs[n-1].Length-r.IntervalS) > 1e-9 {
		ivs = ivs[:n-1]
	}
	return ivs
}

func throughputSamples(r Results) []float64 {
	var out []float64
	for _, iv := range usable(r) {
		if iv.Length > 0 {
			out = append(out, float64(iv.Operations)/iv.Length)
		}
	}
	return out
}

func latencySamples(r Results, step, metric string) []float64 {
	var out []float64
	for _, iv := range usable(r) {
		l, ok := iv.Latency[step]
		if !ok || l.Count == 0 {
			continue
		}
		switch metric {
		case "p50":
			out = append(out, l.P50)
		case "p90":
			out = append(out, l.P90)
		case "p99":
			out = append(out, l.P99)
		}
	}
	return out
}

func gapSamples(r Results) []float64 {
	var out []float64
	for _, iv := range usable(r) {
		if iv.Allocations > 0 {
			out = append(out, float64(iv.Gaps)/float64(iv.Allocations))
		}
	}
	return out
}

// latencySteps are the steps either run has per-interval latency of, in
// report order.
func latencySteps(a, b Results) []string {
	var out []string
	for _, p := range a.Latency {
		if p.Count > 0 {
			if q, ok := latencyOf(b, p.Step); ok && q.Count > 0 {
				out = append(out, p.Step)
			}
		}
	}
	return out
}

func latencyOf(r Results, step string) (Percentiles, bool) {
	for _, p := range r.Latency {
		if p.Step == step {
			return p, true
		}
	}
	return Percentiles{}, false
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func ratio(a, b float64) *float64 {
	if a == 0 || math.IsNaN(a) || math.IsNaN(b) {
		return nil
	}
	r := b / a
	return &r
}

func wanted(list []string, name string) bool {
	return len(list) == 0 || slices.Contains(list, name)
}

// verdictRank orders verdicts from best to worst.
func verdictRank(v string) int {
	switch v {
	case "PASS":
		return 0
	case "UNKNOWN":
		return 1
	}
	return 2
}
