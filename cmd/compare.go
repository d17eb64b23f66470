package cmd

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/report"
)

type compareFlags struct {
	tolerance string
	format    string
	metrics   string
	steps     string
}

func newCompareCommand() *cobra.Command {
	var f compareFlags
	c := &cobra.Command{
		Use:   "compare A B",
		Short: "Put two saved runs side by side and flag regressions of B against A",
		Long: `compare reads two runs saved by chatseq bench --out (each a results directory,
a directory of per-target results directories, or a results.json) and prints
throughput, every percentile of every step, the gap rate and the verdict of
both. B regresses against the baseline A when its throughput falls, or a
percentile or the gap rate rises, by more than --tolerance, or its verdict is
worse (PASS < UNKNOWN < FAIL). Directories with several targets are matched
by target name.

Exit status: 0 no regression, 1 a regression, 2 unusable input or flags.`,
		Args: cobra.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error { return runCompare(c, &f, args[0], args[1]) },
	}
	fl := c.Flags()
	fl.StringVar(&f.tolerance, "tolerance", "10%", "relative change allowed before a metric regresses, e.g. 10% (a bare number is a percentage too)")
	fl.StringVar(&f.format, "format", "text", "output: text or json")
	fl.StringVar(&f.metrics, "metrics", "", "comma-separated metrics that can regress (default all): throughput, "+strings.Join(report.LatencyMetrics, ", ")+", gap_rate, verdict")
	fl.StringVar(&f.steps, "steps", "", "comma-separated steps whose latency can regress (default all): "+stepNames())
	return c
}

func runCompare(c *cobra.Command, f *compareFlags, pathA, pathB string) error {
	tol, err := parseTolerance(f.tolerance)
	if err != nil {
		return err
	}
	if f.format != "text" && f.format != "json" {
		return badInput("--format must be text or json, got %q", f.format)
	}
	opt := report.CompareOptions{Tolerance: tol}
	known := append([]string{report.MetricThroughput, report.MetricGapRate, report.MetricVerdict}, report.LatencyMetrics...)
	if opt.Metrics, err = parseList("--metrics", f.metrics, known); err != nil {
		return err
	}
	if opt.Steps, err = parseList("--steps", f.steps, strings.Split(stepNames(), ", ")); err != nil {
		return err
	}
	runsA, err := loadRuns(pathA)
	if err != nil {
		return err
	}
	runsB, err := loadRuns(pathB)
	if err != nil {
		return err
	}
	pairs, err := pairRuns(runsA, runsB)
	if err != nil {
		return err
	}
	cmp := report.Compare(pairs, opt)
	cmp.A, cmp.B = pathA, pathB
	out := c.OutOrStdout()
	if f.format == "json" {
		err = report.WriteComparisonJSON(out, cmp)
	} else {
		err = report.WriteComparisonText(out, cmp)
	}
	if err != nil {
		return err
	}
	if cmp.Regressions > 0 {
		return exitError{ExitViolation}
	}
	return nil
}

// parseTolerance reads "10%" or "10" as 0.1.
func parseTolerance(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%")), 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, badInput("--tolerance must be a non-negative percentage such as 10%%, got %q", s)
	}
	return v / 100, nil
}

func parseList(flag, s string, known []string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []string
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if !slices.Contains(known, item) {
			return nil, badInput("%s: unknown name %q (known: %s)", flag, item, strings.Join(known, ", "))
		}
		out = append(out, item)
	}
	return out, nil
}

func stepNames() string {
	names := make([]string, 0, len(bench.Steps()))
	for _, s := range bench.Steps() {
		names = append(names, s.String())
	}
	return strings.Join(names, ", ")
}

// loadRuns reads the runs at path: a results.json, a results directory, or
// a directory of per-target ones.
func loadRuns(path string) ([]report.Results, error) {
	var files []string
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		files = []string{path}
	} else {
		dirs, err := resultDirs(path)
		if err != nil {
			return nil, err
		}
		for _, d := range dirs {
			files = append(files, filepath.Join(d, report.ResultsFile))
		}
	}
	runs := make([]report.Results, 0, len(files))
	for _, f := range files {
		r, err := report.ReadResults(f)
		if err != nil {
			return nil, badInput("%v", err)
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// pairRuns matches runs by target; two single runs are compared whatever
// their targets, so one design can be judged against another.
func pairRuns(a, b []report.Results) ([][2]report.Results, error) {
	if len(a) == 1 && len(b) == 1 {
		return [][2]report.Results{{a[0], b[0]}}, nil
	}
	byTarget := map[string]report.Results{}
	for _, r := range b {
		byTarget[r.Run.Target] = r
	}
	var pairs [][2]report.Results
	var missing []string
	for _, r := range a {
		if rb, ok := byTarget[r.Run.Target]; ok {
			pairs = append(pairs, [2]report.Results{r, rb})
		} else {
			missing = append(missing, r.Run.Target)
		}
	}
	if len(pairs) == 0 {
		return nil, badInput("the two runs share no target to compare")
	}
	if len(missing) > 0 {
		return nil, badInput("B has no run of target %s, which A has", strings.Join(missing, ", "))
	}
	return pairs, nil
}
