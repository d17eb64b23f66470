package report

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WriteComparisonText prints c verdict first, then any settings the runs
// do not share, then a table per target: the medians of both runs'
// per-interval samples, their ratio and the U test's p.
func WriteComparisonText(w io.Writer, c Comparison) error {
	checked := 0
	for _, t := range c.Targets {
		for _, r := range t.Rows {
			if r.Checked {
				checked++
			}
		}
	}
	rule := fmt.Sprintf("a change of the median beyond %s at p < %g", formatPct(c.Tolerance), c.Alpha)
	if c.MinChangeMs > 0 {
		rule += ", a latency rise of at least " + fms(c.MinChangeMs)
	}
	if c.Regressions > 0 {
		fmt.Fprintf(w, "verdict: REGRESSION: %d of %d checked rows regressed (%s)\n", c.Regressions, checked, rule)
	} else {
		fmt.Fprintf(w, "verdict: no regression in %d checked rows (%s)\n", checked, rule)
	}
	fmt.Fprintf(w, "B %s against baseline A %s\n", strings.Join(c.B, " "), strings.Join(c.A, " "))
	if len(c.Settings) > 0 {
		fmt.Fprintln(w)
		if len(RefusedSettings(c.Settings)) > 0 {
			fmt.Fprintln(w, "WARNING: THE RUNS WERE NOT RUN ALIKE: figures differ for these settings whatever the code does:")
		} else {
			fmt.Fprintln(w, "note: the runs differ in:")
		}
		for _, d := range c.Settings {
			fmt.Fprintf(w, "  %s\n", d)
		}
	}
	for _, t := range c.Targets {
		fmt.Fprintf(w, "\ntarget %s: medians of per-interval samples (%s A, %s B)%s\n", t.Target, formatSeconds(t.IntervalA), formatSeconds(t.IntervalB), pooledOver(t))
		if t.RunsA == 1 && t.RunsB == 1 {
			fmt.Fprintln(w, "one run a side: p compares their intervals, which share what the machine did during each run; several runs a side (A1 A2 A3 --vs B1 B2 B3) weigh the machine's run-to-run noise")
		}
		runsP := slices.ContainsFunc(t.Rows, func(r ComparisonRow) bool { return r.PRuns != nil })
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "metric\tA\tB\tB/A\tp\t%ssamples\t\n", ifThen(runsP, "p runs\t"))
		for _, r := range t.Rows {
			metric := r.Metric
			if r.Step != "" {
				metric = r.Step + " " + r.Metric
			}
			a, b := r.VerdictA, r.VerdictB
			if r.Unit != "verdict" {
				a, b = formatValue(r.Unit, r.A), formatValue(r.Unit, r.B)
			}
			p, samples := "", ""
			if r.P != nil {
				p = strconv.FormatFloat(*r.P, 'f', 3, 64)
			}
			if r.Unit != "verdict" {
				samples = fmt.Sprintf("%d/%d", r.SamplesA, r.SamplesB)
			}
			pRuns := ""
			if r.PRuns != nil {
				pRuns = strconv.FormatFloat(*r.PRuns, 'f', 3, 64)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s%s\t%s\n", metric, a, b, FormatRatio(r.Ratio), p, ifThen(runsP, pRuns+"\t"), samples, rowMark(r))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// pooledOver names the runs pooled when a side has several.
func pooledOver(t TargetComparison) string {
	if t.RunsA == 1 && t.RunsB == 1 {
		return ""
	}
	return fmt.Sprintf(", pooled over %d run%s A, %d run%s B", t.RunsA, plural(t.RunsA), t.RunsB, plural(t.RunsB))
}

func ifThen(cond bool, s string) string {
	if cond {
		return s
	}
	return ""
}

func rowMark(r ComparisonRow) string {
	switch {
	case r.Regression:
		return "REGRESSION"
	case !r.Checked:
		return "(not checked)"
	case r.Note != "":
		return "(" + r.Note + ")"
	case r.Unit != "verdict" && !r.Significant:
		return "~ (no significant change)"
	case r.Unit == "verdict" || r.Ratio == nil:
		return ""
	case r.Metric == MetricThroughput && *r.Ratio > 1, r.Metric != MetricThroughput && *r.Ratio < 1:
		return "better"
	}
	return "worse, within the tolerance"
}

// FormatRatio prints B/A as a factor, "×1.24": a ratio reads the same
// whatever its size, where a percentage of a near-zero baseline runs to
// "+24833744.9%".
func FormatRatio(r *float64) string {
	if r == nil {
		return "-"
	}
	switch v := *r; {
	case v >= 100:
		return "×" + strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return "×" + strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return "×" + strconv.FormatFloat(v, 'f', 2, 64)
	}
}

func formatValue(unit string, v *float64) string {
	if v == nil {
		return "-"
	}
	switch unit {
	case "ops/s":
		return formatRate(*v) + " ops/s"
	case "ms":
		return fms(*v)
	case "ratio":
		return fmt.Sprintf("%.2f%%", 100**v)
	}
	return strconv.FormatFloat(*v, 'g', 4, 64)
}

func formatSeconds(s float64) string {
	if s == 0 {
		return "unknown intervals"
	}
	return strconv.FormatFloat(s, 'g', 3, 64) + "s"
}

// WriteComparisonJSON prints c as one JSON object, numbers as numbers.
func WriteComparisonJSON(w io.Writer, c Comparison) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(c)
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
