package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/aclements/go-moremath/stats"
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
	// RequireTested: every checked row of figures must be tested. One
	// that could not be (too few intervals or operations an interval, a
	// step only one side has) makes the verdict VerdictUnknown rather
	// than "no regression" in the rows that were; without it the verdict
	// names the untested rows and speaks for the tested ones.
	RequireTested bool
}

// Comparison is B judged against baseline A, per target; each side is one
// run or several runs of one command.
type Comparison struct {
	A       []string `json:"a"` // the paths given, as given
	B       []string `json:"b"`
	Verdict string   `json:"verdict"` // VerdictRegression, VerdictNoRegression or VerdictUnknown
	// Undecided says why the verdict is VerdictUnknown: which checked
	// rows could not be tested, and why.
	Undecided   string  `json:"undecided,omitempty"`
	Regressions int     `json:"regressions"`
	Tolerance   float64 `json:"tolerance"`
	Alpha       float64 `json:"alpha"`
	MinChangeMs float64 `json:"min_latency_change_ms"`
	// Tests is the size of the family Holm–Bonferroni corrects over:
	// the rows with a p.
	Tests int `json:"tests"`
	// CheckedRows are the rows of figures checked (--metrics, --steps;
	// the verdict row aside), TestedRows those of them tested, Untested
	// the others and why: a verdict of no regression speaks for the
	// tested rows only, and says so. RequireTested: an untested row makes
	// the verdict unknown (CompareOptions.RequireTested).
	CheckedRows   int                `json:"checked_rows"`
	TestedRows    int                `json:"tested_rows"`
	Untested      []UntestedRow      `json:"untested"`
	RequireTested bool               `json:"require_tested"`
	Settings      []SettingDiff      `json:"settings_differ"`
	Targets       []TargetComparison `json:"targets"`
}

// UntestedRow is a checked row of figures that could not be tested: its
// name ("persist p99", "throughput"), its target when the comparison has
// several, and why.
type UntestedRow struct {
	Target string `json:"target,omitempty"`
	Row    string `json:"row"`
	Why    string `json:"why"`
}

func (u UntestedRow) String() string {
	if u.Target != "" {
		return u.Target + " " + u.Row
	}
	return u.Row
}

// The comparison's verdicts.
const (
	VerdictRegression = "regression"
	// VerdictNoRegression: nothing regressed among the rows tested; the
	// checked rows that could not be tested, if any, are in Untested.
	VerdictNoRegression = "no regression"
	// VerdictUnknown: nothing regressed, but no checked row of figures
	// could be tested (too few intervals or operations an interval), so
	// "no regression" would rest on no evidence; or, with
	// CompareOptions.RequireTested, some checked row could not be.
	VerdictUnknown = "unknown"
)

// TargetComparison is one target's rows.
type TargetComparison struct {
	Target string `json:"target"`
	// RunsA and RunsB are the runs pooled on each side.
	RunsA int `json:"runs_a"`
	RunsB int `json:"runs_b"`
	// IntervalA and IntervalB are the runs' interval lengths in seconds:
	// the samples' unit.
	IntervalA float64         `json:"interval_a_s"`
	IntervalB float64         `json:"interval_b_s"`
	Rows      []ComparisonRow `json:"rows"`
}

// ComparisonRow is one metric of both sides: the medians of their
// per-interval samples, pooled over a side's runs (the whole runs' figure
// for the verdict), their ratio B/A, the Mann-Whitney U test's p that the
// two pools come from one distribution and, with several runs, the
// t-test's p on the runs' medians.
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
	Ratio *float64 `json:"ratio,omitempty"`
	P     *float64 `json:"p,omitempty"`
	// PRuns is Student's t-test's p on the logarithms of the runs'
	// medians: the runs are the independent samples, where a run's
	// intervals share what the machine did during it. Absent with one run
	// a side.
	PRuns    *float64 `json:"p_runs,omitempty"`
	SamplesA int      `json:"samples_a"`
	SamplesB int      `json:"samples_b"`
	// PHolm and PRunsHolm are P and PRuns adjusted by Holm–Bonferroni
	// over the family of tests one comparison makes (every row's, every
	// target's; holm.go): some twenty tests at alpha each would flag a
	// change by chance alone in two runs of one command.
	PHolm     *float64 `json:"p_holm,omitempty"`
	PRunsHolm *float64 `json:"p_runs_holm,omitempty"`
	// Significant: PHolm is below alpha, and so is PRunsHolm when there
	// is one.
	Significant bool `json:"significant"`
	// Tested: the row has a p, from samples enough for it to fall below
	// alpha had the sides differed wholly (the verdict row is not tested:
	// it is compared as it is).
	Tested     bool `json:"tested"`
	Checked    bool `json:"checked"`
	Regression bool `json:"regression"`
	// Note says why a row could not be tested, or for the verdict how
	// many of a side's runs had its worst verdict.
	Note string `json:"note,omitempty"`
	// exceeds: B is worse than A beyond the tolerance (and the latency
	// floor); a tested row then regresses if the change is significant.
	exceeds bool
}

// RunSets are one target's runs on each side: A the baseline's, B the
// candidate's, each one run or several runs of one command.
type RunSets struct {
	A, B []Results
}

// Pair is a single run a side.
func Pair(a, b Results) RunSets { return RunSets{A: []Results{a}, B: []Results{b}} }

// Compare judges each set's B against its baseline A, target by target.
// Settings lists what A's first run and B's first run do not share; that
// the runs within a side were run alike is SettingsWithin's to check.
func Compare(sets []RunSets, opt CompareOptions) Comparison {
	if opt.Alpha == 0 {
		opt.Alpha = DefaultAlpha
	}
	c := Comparison{Tolerance: opt.Tolerance, Alpha: opt.Alpha, MinChangeMs: opt.MinLatencyChange, RequireTested: opt.RequireTested, Settings: []SettingDiff{}}
	for _, set := range sets {
		c.Settings = append(c.Settings, SettingsDiffer(set.A[0], set.B[0])...)
		c.Targets = append(c.Targets, compareRuns(set.A, set.B, opt))
	}
	c.Tests = judge(c.Targets, opt.Alpha)
	for _, t := range c.Targets {
		for _, r := range t.Rows {
			if r.Regression {
				c.Regressions++
			}
		}
	}
	c.Settings = slices.CompactFunc(c.Settings, func(x, y SettingDiff) bool { return x == y })
	c.CheckedRows, c.TestedRows, c.Untested = c.testedRows()
	checked, tested, why := c.CheckedRows, c.TestedRows, c.UntestedWhy()
	switch {
	case c.Regressions > 0:
		c.Verdict = VerdictRegression
	case checked > 0 && tested == 0:
		c.Verdict = VerdictUnknown
		c.Undecided = fmt.Sprintf("none of the %d checked rows of figures could be tested (%s); longer runs, or more runs a side, give each row the samples it needs", checked, why)
	case opt.RequireTested && tested < checked:
		c.Verdict = VerdictUnknown
		c.Undecided = fmt.Sprintf("%d of the %d checked rows of figures could not be tested (%s), and --require-tested asks for every one (none of the %d tested regressed); longer runs, more runs a side, or --metrics and --steps naming only the rows that can be tested", checked-tested, checked, why, tested)
	default:
		c.Verdict = VerdictNoRegression
	}
	return c
}

// testedRows counts the checked rows of figures (every row but the
// verdict) and those of them tested, and lists the others with why.
func (c Comparison) testedRows() (checked, tested int, untested []UntestedRow) {
	untested = []UntestedRow{}
	for _, t := range c.Targets {
		for _, r := range t.Rows {
			if !r.Checked || r.Metric == MetricVerdict {
				continue
			}
			checked++
			if r.Tested {
				tested++
				continue
			}
			u := UntestedRow{Row: strings.TrimSpace(r.Step + " " + r.Metric), Why: r.Note}
			if u.Why == "" {
				u.Why = "no p"
			}
			if len(c.Targets) > 1 {
				u.Target = t.Target
			}
			untested = append(untested, u)
		}
	}
	return checked, tested, untested
}

// UntestedWhy says which checked rows could not be tested and why: each
// reason once, after the rows it applies to.
func (c Comparison) UntestedWhy() string {
	var reasons []string
	rowsOf := map[string][]string{}
	for _, u := range c.Untested {
		if _, ok := rowsOf[u.Why]; !ok {
			reasons = append(reasons, u.Why)
		}
		rowsOf[u.Why] = append(rowsOf[u.Why], u.String())
	}
	parts := make([]string, len(reasons))
	for i, n := range reasons {
		parts[i] = strings.Join(slices.Compact(rowsOf[n]), ", ") + ": " + n
	}
	return strings.Join(parts, "; ")
}

// uTestCanReach reports whether the Mann-Whitney U test on samples of n1
// and n2 can give a two-sided p below alpha at all: its smallest p, when
// the two samples do not overlap, is 2/C(n1+n2, n1).
func uTestCanReach(n1, n2 int, alpha float64) bool {
	if n1 == 0 || n2 == 0 {
		return false
	}
	ways := 1.0 // C(n1+n2, n1), built up until it is large enough
	for i := 1; i <= n1; i++ {
		ways = ways * float64(n2+i) / float64(i)
		if 2/ways < alpha {
			return true
		}
	}
	return 2/ways < alpha
}

func compareRuns(a, b []Results, opt CompareOptions) TargetComparison {
	name := b[0].Run.Target
	if a[0].Run.Target != b[0].Run.Target {
		name = a[0].Run.Target + " → " + b[0].Run.Target
	}
	tc := TargetComparison{Target: name, RunsA: len(a), RunsB: len(b), IntervalA: a[0].IntervalS, IntervalB: b[0].IntervalS}
	add := func(row ComparisonRow, exceeds bool) {
		row.Checked = wanted(opt.Metrics, row.Metric) && (row.Step == "" || wanted(opt.Steps, row.Step))
		row.exceeds = exceeds
		tc.Rows = append(tc.Rows, row)
	}

	row := sampleRow(MetricThroughput, "", "ops/s", perRun(a, throughputSamples), perRun(b, throughputSamples), opt.Alpha)
	add(row, row.Ratio != nil && *row.Ratio < 1-opt.Tolerance)

	for _, step := range latencySteps(a[0], b[0]) {
		for _, m := range LatencyMetrics {
			samples := func(r Results) []float64 { return latencySamples(r, step, m) }
			row := sampleRow(m, step, "ms", perRun(a, samples), perRun(b, samples), opt.Alpha)
			if need, got := minCountFor(m), min(medianCount(a, step), medianCount(b, step)); got < need {
				// An interval's p99 of forty operations is their maximum:
				// one operation, not a distribution.
				row.P, row.PRuns, row.Tested = nil, nil, false
				row.Note = fmt.Sprintf("%d operations an interval: too few to estimate a %s (%d needed)", got, m, need)
			}
			add(row, row.Ratio != nil && *row.Ratio > 1+opt.Tolerance && *row.B-*row.A >= opt.MinLatencyChange)
		}
	}

	// A step only one side has cannot be compared; its rows say so, so
	// that a verdict does not pass over them.
	for _, lack := range oneSidedSteps(a[0], b[0]) {
		for _, m := range LatencyMetrics {
			samples := func(r Results) []float64 { return latencySamples(r, lack.step, m) }
			pa, pb := slices.Concat(perRun(a, samples)...), slices.Concat(perRun(b, samples)...)
			row := ComparisonRow{Metric: m, Step: lack.step, Unit: "ms", SamplesA: len(pa), SamplesB: len(pb),
				Note: fmt.Sprintf("no %s operations in %s: nothing to compare", lack.step, lack.side)}
			if len(pa) > 0 {
				ma := median(pa)
				row.A = &ma
			}
			if len(pb) > 0 {
				mb := median(pb)
				row.B = &mb
			}
			add(row, false)
		}
	}

	// The gap rate's samples are each interval's (by allocation); the
	// figures shown are the whole runs' (their mean), the checker's, which
	// a deleted counter does not skew.
	row = sampleRow(MetricGapRate, "", "ratio", perRun(a, gapSamples), perRun(b, gapSamples), opt.Alpha)
	ga, gb := meanGapRate(a), meanGapRate(b)
	row.A, row.B, row.Ratio = &ga, &gb, ratio(ga, gb)
	add(row, gb-ga > gapRateFloor && (row.Ratio == nil || *row.Ratio > 1+opt.Tolerance))

	va, vb := worstVerdict(a), worstVerdict(b)
	verdict := ComparisonRow{Metric: MetricVerdict, Unit: "verdict", VerdictA: va, VerdictB: vb}
	var spread []string
	for _, s := range []string{verdictSpread("A", a, va), verdictSpread("B", b, vb)} {
		if s != "" {
			spread = append(spread, s)
		}
	}
	verdict.Note = strings.Join(spread, "; ")
	add(verdict, verdictRank(vb) > verdictRank(va))
	return tc
}

// perRun is each run's samples.
func perRun(runs []Results, samples func(Results) []float64) [][]float64 {
	out := make([][]float64, len(runs))
	for i, r := range runs {
		out[i] = samples(r)
	}
	return out
}

// sampleRow compares two sides' samples, each a list of runs' samples:
// the medians of the pooled samples, their ratio, the U test on the pools
// and, with three runs or more in all, the t-test on the runs' medians.
// Whether the change is significant is judge's to say, over every row.
func sampleRow(metric, step, unit string, a, b [][]float64, alpha float64) ComparisonRow {
	pa, pb := slices.Concat(a...), slices.Concat(b...)
	row := ComparisonRow{Metric: metric, Step: step, Unit: unit, SamplesA: len(pa), SamplesB: len(pb)}
	if len(pa) == 0 || len(pb) == 0 {
		row.Note = "no per-interval samples"
		return row
	}
	ma, mb := median(pa), median(pb)
	row.A, row.B, row.Ratio = &ma, &mb, ratio(ma, mb)
	thresholds := benchmath.Thresholds{CompareAlpha: alpha}
	cmp := benchmath.AssumeNothing.Compare(benchmath.NewSample(pa, &thresholds), benchmath.NewSample(pb, &thresholds))
	if !math.IsNaN(cmp.P) {
		p := cmp.P
		row.P = &p
		row.Tested = uTestCanReach(len(pa), len(pb), alpha)
	}
	if len(cmp.Warnings) > 0 {
		row.Note = cmp.Warnings[0].Error() // too few samples to ever reach alpha
	}
	if row.P != nil && !row.Tested && row.Note == "" {
		row.Note = fmt.Sprintf("%d and %d samples: too few for p to fall below %g", len(pa), len(pb), alpha)
	}
	row.PRuns = runsP(a, b)
	return row
}

// runsP is the two-sample Student's t-test's p that the runs' medians of
// a and b share a mean: the runs are the independent samples, so a side's
// spread from run to run (what the machine did meanwhile) is weighed,
// which its intervals, sharing their run's conditions, cannot show. It
// takes logarithms, as the machine's load scales a figure rather than
// adds to it (plain values when one is not positive). Nil with fewer than
// three runs in all: one run a side has no run-to-run spread.
func runsP(a, b [][]float64) *float64 {
	ma, mb := runMedians(a), runMedians(b)
	if len(ma) == 0 || len(mb) == 0 || len(ma)+len(mb) < 3 {
		return nil
	}
	if slices.Min(ma) > 0 && slices.Min(mb) > 0 {
		for i := range ma {
			ma[i] = math.Log(ma[i])
		}
		for i := range mb {
			mb[i] = math.Log(mb[i])
		}
	}
	var p float64
	t, err := stats.TwoSampleTTest(stats.Sample{Xs: ma}, stats.Sample{Xs: mb}, stats.LocationDiffers)
	switch {
	case err == nil:
		p = t.P
	case stats.Mean(ma) == stats.Mean(mb): // every run alike, on both sides
		p = 1
	default: // every run alike within each side, the sides apart
		p = 0
	}
	return &p
}

// runMedians are the medians of the runs that have samples.
func runMedians(runs [][]float64) []float64 {
	var out []float64
	for _, s := range runs {
		if len(s) > 0 {
			out = append(out, median(s))
		}
	}
	return out
}

func meanGapRate(runs []Results) float64 {
	sum := 0.0
	for _, r := range runs {
		sum += r.Check.Stats.GapRate
	}
	return sum / float64(len(runs))
}

// worstVerdict is a side's verdict: its worst run's.
func worstVerdict(runs []Results) string {
	worst := Verdict(runs[0].Check)
	for _, r := range runs[1:] {
		if v := Verdict(r.Check); verdictRank(v) > verdictRank(worst) {
			worst = v
		}
	}
	return worst
}

// verdictSpread says how many of a side's runs have its worst verdict,
// when not all do.
func verdictSpread(side string, runs []Results, worst string) string {
	n := 0
	for _, r := range runs {
		if Verdict(r.Check) == worst {
			n++
		}
	}
	if n == len(runs) {
		return ""
	}
	return fmt.Sprintf("%s: %s in %d of %d runs", side, worst, n, len(runs))
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

// medianCount is the median number of operations of step an interval,
// over every run's intervals.
func medianCount(runs []Results, step string) int64 {
	var ns []float64
	for _, r := range runs {
		for _, iv := range usable(r) {
			ns = append(ns, float64(iv.Latency[step].Count))
		}
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

// oneSided is a step one run has operations of and the other none.
type oneSided struct {
	step string
	side string // the side that has none: A or B
}

// oneSidedSteps are the steps with operations in a but none in b, then
// in b but none in a, in report order.
func oneSidedSteps(a, b Results) []oneSided {
	var out []oneSided
	for _, x := range []struct {
		has, lacks Results
		side       string
	}{{a, b, "B"}, {b, a, "A"}} {
		for _, p := range x.has.Latency {
			if q, ok := latencyOf(x.lacks, p.Step); p.Count > 0 && (!ok || q.Count == 0) {
				out = append(out, oneSided{p.Step, x.side})
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
