package cmd

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/report"
)

type compareFlags struct {
	tolerance     string
	alpha         float64
	minChange     time.Duration
	format        string
	metrics       string
	steps         string
	allowSettings bool
}

func newCompareCommand() *cobra.Command {
	var f compareFlags
	c := &cobra.Command{
		Use:   "compare A B",
		Short: "Put two saved runs side by side and flag regressions of B against A",
		Long: `compare reads two runs saved by chatseq bench --out or chatseq run --out (each
a results directory, a directory of per-target results directories, or a
results.json) and compares their distributions, as benchstat does: each
run's per-interval samples (throughput, and every step's p50, p90 and p99
of each interval; the gap rate) are compared by the Mann-Whitney U test.
B regresses against the baseline A when a change is significant (p below
--alpha) and its median moves by more than --tolerance the wrong way, or
when its verdict is worse (PASS < UNKNOWN < FAIL). The verdict comes first,
then ratios B/A ("×1.24"). Directories with several targets are matched by
target name.

Runs made with other load or fault settings (closed against open loop,
another rate, other faults) are refused: their figures differ whatever the
code does. --allow-different-settings compares them anyway, under a
warning. Another target or run length is named, not refused.

Exit status: 0 no regression, 1 a regression, 2 unusable input or flags,
or runs whose settings differ.`,
		Args: cobra.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error { return runCompare(c, &f, args[0], args[1]) },
	}
	fl := c.Flags()
	fl.StringVar(&f.tolerance, "tolerance", "10%", "change of a median allowed before a significant change regresses, e.g. 10% (a bare number is a percentage too)")
	fl.Float64Var(&f.alpha, "alpha", report.DefaultAlpha, "significance level of the Mann-Whitney U test: a change regresses only when p is below it")
	fl.DurationVar(&f.minChange, "min-change", time.Millisecond, "smallest rise of a latency median that regresses, however significant: on a shared machine the scheduler moves percentiles of microsecond steps by about a timeslice from run to run (0 on a quiet machine)")
	fl.BoolVar(&f.allowSettings, "allow-different-settings", false, "compare runs whose load or fault settings differ, under a warning, rather than refuse")
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
	if !(f.alpha > 0 && f.alpha < 1) {
		return badInput("--alpha must be between 0 and 1, got %g", f.alpha)
	}
	if f.minChange < 0 {
		return badInput("--min-change must not be negative, got %s", f.minChange)
	}
	opt := report.CompareOptions{Tolerance: tol, Alpha: f.alpha, MinLatencyChange: float64(f.minChange) / float64(time.Millisecond)}
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
	if refused := report.RefusedSettings(cmp.Settings); len(refused) > 0 && !f.allowSettings {
		lines := make([]string, len(refused))
		for i, d := range refused {
			lines[i] = "  " + d.String()
		}
		return badInput("%s and %s were not run alike; their figures would differ whatever the code does:\n%s\n(--allow-different-settings compares them anyway)", pathA, pathB, strings.Join(lines, "\n"))
	}
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
		if flag == "--metrics" && (item == "p99.9" || item == "max") {
			return nil, badInput("--metrics: %s is not compared: the run's single %s is one operation's latency, which moves by any amount between two runs of one command; compare tests each interval's p50, p90 and p99", item, item)
		}
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
