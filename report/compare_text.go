package report

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// WriteComparisonText prints c verdict first, then any settings the runs
// do not share, then a table per target: the medians of both sides'
// per-interval samples, their ratio and the tests' p. It fits the
// terminal's width when w is one (TerminalWidth).
func WriteComparisonText(w io.Writer, c Comparison) error {
	return writeComparisonText(w, c, TerminalWidth(w))
}

func writeComparisonText(w io.Writer, c Comparison, width int) error {
	const indent = "  "
	checked := 0
	for _, t := range c.Targets {
		for _, r := range t.Rows {
			if r.Checked {
				checked++
			}
		}
	}
	rule := fmt.Sprintf("a change of the median beyond %s at p < %g, Holm–Bonferroni-corrected over the %d rows tested", formatPct(c.Tolerance), c.Alpha, c.Tests)
	if c.MinChangeMs > 0 {
		rule += ", a latency rise of at least " + fms(c.MinChangeMs)
	}
	switch {
	case c.Regressions > 0:
		wrapLine(w, fmt.Sprintf("verdict: REGRESSION: %d of %d checked rows regressed (%s)", c.Regressions, checked, rule), width, indent)
		if len(c.Untested) > 0 {
			wrapLine(w, fmt.Sprintf("untested, so not judged: %d of %d checked rows of figures: %s", len(c.Untested), c.CheckedRows, c.UntestedWhy()), width, indent)
		}
	case c.Verdict == VerdictUnknown:
		wrapLine(w, "verdict: UNKNOWN: cannot tell whether B regressed: "+c.Undecided, width, indent)
	case len(c.Untested) > 0:
		// "No regression" speaks for the rows tested only: the others
		// are named, with why, and are no evidence either way.
		andVerdict := ""
		if checked > c.CheckedRows {
			andVerdict = " and the verdict"
		}
		wrapLine(w, fmt.Sprintf("verdict: no regression in the %d rows of figures tested%s; %d of %d checked rows of figures untested (%s)", c.TestedRows, andVerdict, len(c.Untested), c.CheckedRows, rule), width, indent)
		wrapLine(w, fmt.Sprintf("untested, so not judged: %s (--require-tested makes an untested row UNKNOWN, exit 3)", c.UntestedWhy()), width, indent)
	default:
		wrapLine(w, fmt.Sprintf("verdict: no regression in %d checked rows (%s)", checked, rule), width, indent)
	}
	wrapLine(w, fmt.Sprintf("B %s against baseline A %s", strings.Join(c.B, " "), strings.Join(c.A, " ")), width, indent)
	if len(c.Settings) > 0 {
		fmt.Fprintln(w)
		if len(RefusedSettings(c.Settings)) > 0 {
			wrapLine(w, "WARNING: THE RUNS WERE NOT RUN ALIKE: figures differ for these settings whatever the code does:", width, indent)
		} else {
			fmt.Fprintln(w, "note: the runs differ in:")
		}
		for _, d := range c.Settings {
			wrapLine(w, indent+d.String(), width, indent+indent)
		}
	}
	for _, t := range c.Targets {
		fmt.Fprintln(w)
		wrapLine(w, fmt.Sprintf("target %s: medians of per-interval samples (%s A, %s B)%s", t.Target, formatSeconds(t.IntervalA), formatSeconds(t.IntervalB), pooledOver(t)), width, indent)
		if t.RunsA == 1 && t.RunsB == 1 {
			wrapLine(w, "one run a side: p compares their intervals, which share what the machine did during each run; several runs a side (A1 A2 A3 --vs B1 B2 B3) weigh the machine's run-to-run noise", width, indent)
		}
		runsP := slices.ContainsFunc(t.Rows, func(r ComparisonRow) bool { return r.PRuns != nil })
		// The p shown is the one judged: Holm-corrected (holm.go).
		header := []string{"metric", "A", "B", "B/A", "p (Holm)", "samples", ""}
		if runsP {
			header = slices.Insert(header, 5, "p runs (Holm)")
		}
		var rows [][]string
		for _, r := range t.Rows {
			metric := r.Metric
			if r.Step != "" {
				metric = r.Step + " " + r.Metric
			}
			a, b := r.VerdictA, r.VerdictB
			if r.Unit != "verdict" {
				a, b = formatValue(r.Unit, r.A), formatValue(r.Unit, r.B)
			}
			samples := ""
			if r.Unit != "verdict" {
				samples = fmt.Sprintf("%d/%d", r.SamplesA, r.SamplesB)
			}
			row := []string{metric, a, b, FormatRatio(r.Ratio), formatP(r.PHolm), samples, rowMark(r)}
			if runsP {
				row = slices.Insert(row, 5, formatP(r.PRunsHolm))
			}
			rows = append(rows, row)
		}
		if err := fitTable(w, header, rows, width, false); err != nil {
			return err
		}
	}
	return nil
}

func formatP(p *float64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatFloat(*p, 'f', 3, 64)
}

// pooledOver names the runs pooled when a side has several.
func pooledOver(t TargetComparison) string {
	if t.RunsA == 1 && t.RunsB == 1 {
		return ""
	}
	return fmt.Sprintf(", pooled over %d run%s A, %d run%s B", t.RunsA, plural(t.RunsA), t.RunsB, plural(t.RunsB))
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
