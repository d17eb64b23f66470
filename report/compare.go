package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// Metric names a comparison row's kind, for CompareOptions.Metrics.
const (
	MetricThroughput = "throughput"
	MetricGapRate    = "gap_rate"
	MetricVerdict    = "verdict"
)

// LatencyMetrics are the percentiles compared for every step.
var LatencyMetrics = []string{"p50", "p90", "p99", "p99.9", "max"}

// gapRateFloor is the smallest gap rate rise flagged, in absolute terms: a
// run with no gaps that gets one in ten thousand sequences is not a 100%
// regression worth failing a build on (the contract's gapless invariant
// judges designs that promise none).
const gapRateFloor = 0.001

// CompareOptions say what counts as a regression.
type CompareOptions struct {
	// Tolerance is the relative change allowed before a row regresses:
	// 0.1 lets p99 grow and throughput fall by 10%.
	Tolerance float64
	// Metrics and Steps, if set, limit the rows that can regress (all rows
	// are still shown): metric names from LatencyMetrics and the Metric
	// constants, step names from bench.Steps.
	Metrics, Steps []string
}

// Comparison is run B judged against baseline A, per target.
type Comparison struct {
	A, B        string             `json:"-"`
	Tolerance   float64            `json:"tolerance"`
	Targets     []TargetComparison `json:"targets"`
	Regressions int                `json:"regressions"`
}

// TargetComparison is one target's rows.
type TargetComparison struct {
	Target string          `json:"target"`
	Rows   []ComparisonRow `json:"rows"`
}

// ComparisonRow is one metric of both runs. Change is (B−A)/A, absent when
// A is 0 or the row is a verdict.
type ComparisonRow struct {
	Metric     string   `json:"metric"`
	Step       string   `json:"step,omitempty"`
	A          string   `json:"a"`
	B          string   `json:"b"`
	Change     *float64 `json:"change,omitempty"`
	Checked    bool     `json:"checked"`
	Regression bool     `json:"regression"`
}

// Compare judges b against the baseline a, target by target: pairs holds
// the runs to compare, A first.
func Compare(pairs [][2]Results, opt CompareOptions) Comparison {
	c := Comparison{Tolerance: opt.Tolerance}
	for _, p := range pairs {
		tc := compareRuns(p[0], p[1], opt)
		for _, r := range tc.Rows {
			if r.Regression {
				c.Regressions++
			}
		}
		c.Targets = append(c.Targets, tc)
	}
	return c
}

func compareRuns(a, b Results, opt CompareOptions) TargetComparison {
	name := b.Run.Target
	if a.Run.Target != b.Run.Target {
		name = a.Run.Target + " → " + b.Run.Target
	}
	tc := TargetComparison{Target: name}
	add := func(row ComparisonRow, worse bool) {
		row.Checked = wanted(opt.Metrics, row.Metric) && (row.Step == "" || wanted(opt.Steps, row.Step))
		row.Regression = row.Checked && worse
		tc.Rows = append(tc.Rows, row)
	}

	ch := change(a.Throughput, b.Throughput)
	add(ComparisonRow{Metric: MetricThroughput, A: formatRate(a.Throughput) + " ops/s", B: formatRate(b.Throughput) + " ops/s", Change: ch},
		ch != nil && *ch < -opt.Tolerance)

	for _, pa := range a.Latency {
		pb, ok := latencyOf(b, pa.Step)
		if !ok || pa.Count == 0 || pb.Count == 0 {
			continue
		}
		va, vb := percentileValues(pa), percentileValues(pb)
		for i, m := range LatencyMetrics {
			ch := change(va[i], vb[i])
			add(ComparisonRow{Metric: m, Step: pa.Step, A: fms(va[i]), B: fms(vb[i]), Change: ch},
				ch != nil && *ch > opt.Tolerance)
		}
	}

	// The checker's gap rate: gaps over the sequences the surviving
	// counters handed out (ADR-004's calculate_gap_rate), which a deleted
	// counter does not skew.
	ga, gb := a.Check.Stats.GapRate, b.Check.Stats.GapRate
	ch = change(ga, gb)
	add(ComparisonRow{Metric: MetricGapRate, A: fmt.Sprintf("%.2f%%", 100*ga), B: fmt.Sprintf("%.2f%%", 100*gb), Change: ch},
		gb-ga > gapRateFloor && (ch == nil || *ch > opt.Tolerance))

	va, vb := Verdict(a.Check), Verdict(b.Check)
	add(ComparisonRow{Metric: MetricVerdict, A: va, B: vb}, verdictRank(vb) > verdictRank(va))
	return tc
}

func latencyOf(r Results, step string) (Percentiles, bool) {
	for _, p := range r.Latency {
		if p.Step == step {
			return p, true
		}
	}
	return Percentiles{}, false
}

// percentileValues lists p's values in LatencyMetrics order.
func percentileValues(p Percentiles) []float64 {
	return []float64{p.P50, p.P90, p.P99, p.P999, p.Max}
}

func change(a, b float64) *float64 {
	if a == 0 || math.IsNaN(a) || math.IsNaN(b) {
		return nil
	}
	c := (b - a) / a
	return &c
}

func wanted(list []string, name string) bool {
	if len(list) == 0 {
		return true
	}
	for _, l := range list {
		if l == name {
			return true
		}
	}
	return false
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

// WriteComparisonText prints c as a table per target, regressions marked.
func WriteComparisonText(w io.Writer, c Comparison) error {
	fmt.Fprintf(w, "chatseq compare: B %s against baseline A %s, tolerance %s\n", c.B, c.A, formatPct(c.Tolerance))
	for _, t := range c.Targets {
		fmt.Fprintf(w, "\ntarget %s\n", t.Target)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "metric\tA\tB\tchange\t\n")
		for _, r := range t.Rows {
			metric := r.Metric
			if r.Step != "" {
				metric = r.Step + " " + r.Metric
			}
			mark := ""
			switch {
			case r.Regression:
				mark = "REGRESSION"
			case !r.Checked:
				mark = "(not checked)"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", metric, r.A, r.B, formatChange(r.Change), mark)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	fmt.Fprintln(w)
	if c.Regressions == 0 {
		_, err := fmt.Fprintf(w, "no regression beyond %s\n", formatPct(c.Tolerance))
		return err
	}
	_, err := fmt.Fprintf(w, "%d regression%s beyond %s\n", c.Regressions, plural(c.Regressions), formatPct(c.Tolerance))
	return err
}

// WriteComparisonJSON prints c as one JSON object.
func WriteComparisonJSON(w io.Writer, c Comparison) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		A string `json:"a"`
		B string `json:"b"`
		Comparison
	}{c.A, c.B, c})
}

func formatChange(c *float64) string {
	if c == nil {
		return "-"
	}
	return fmt.Sprintf("%+.1f%%", 100**c)
}

func formatPct(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", 100*f), "0"), ".") + "%"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
