package cmd

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

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
	requireTested bool
	vs            vsFlag
}

// vsFlag is --vs: its value is B's first run and the arguments after it
// the rest of B's, so it records how many arguments came before it, which
// pflag, parsing in order, has collected when it sets the flag.
type vsFlag struct {
	flags *pflag.FlagSet
	first string // B's first run
	at    int    // the arguments before --vs: A's runs
	set   bool
}

func (v *vsFlag) String() string { return v.first }
func (v *vsFlag) Type() string   { return "B1" }
func (v *vsFlag) Set(s string) error {
	if v.set {
		return fmt.Errorf("given twice: name B's runs once, after A's: A1 A2 --vs B1 B2")
	}
	v.first, v.at, v.set = s, len(v.flags.Args()), true
	return nil
}

// sides splits the arguments into A's runs and B's.
func (v *vsFlag) sides(args []string) (a, b []string, err error) {
	if !v.set {
		if len(args) != 2 {
			return nil, nil, badInput("compare takes two runs, A B, or several a side, A1 A2 … --vs B1 B2 …; got %s", argumentCount(len(args)))
		}
		return args[:1], args[1:], nil
	}
	if v.at == 0 {
		return nil, nil, badInput("--vs follows the baseline's runs: compare A1 A2 … --vs B1 B2 …")
	}
	return args[:v.at], append([]string{v.first}, args[v.at:]...), nil
}

func newCompareCommand() *cobra.Command {
	var f compareFlags
	c := &cobra.Command{
		Use:   "compare {A B | A1 A2 ... --vs B1 B2 ...}",
		Short: "Put saved runs side by side and flag regressions of B against A",
		Long: `compare reads runs saved by chatseq bench --out or chatseq run --out (each
a results directory, a directory of per-target results directories, or a
results.json) and compares their distributions, as benchstat does: each
run's per-interval samples (throughput, and every step's p50, p90 and p99
of each interval; the gap rate) are compared by the Mann-Whitney U test.
B regresses against the baseline A when a change is significant (p below
--alpha, Holm–Bonferroni-corrected over the rows tested, so that some
twenty tests do not flag a change by chance) and its median moves by more
than --tolerance the wrong way, or
when its verdict is worse (PASS < UNKNOWN < FAIL). The verdict comes first,
then ratios B/A ("×1.24"). Directories with several targets are matched by
target name.

One run a side cannot tell a change of the code from what the machine did
during each run. Several runs of one command a side (A1 A2 A3 --vs B1 B2
B3; interleave them: A, B, A, B…) pool their intervals, and a change is
significant only if the runs' medians differ too (Student's t-test, the
runs being the independent samples), beyond their spread from run to run.

Runs made with other load or fault settings (closed against open loop,
another rate, other faults) are refused: their figures differ whatever the
code does. --allow-different-settings compares them anyway, under a
warning. Another target or run length is named, not refused. Runs pooled
on one side must differ in nothing but their length.

A row that cannot be tested (too few intervals, too few operations an
interval for its percentile, a step only one side has) is no evidence
either way: "no regression" then speaks for the rows tested only, and the
verdict names every untested row and why (JSON: untested). --require-tested
asks for every checked row to be tested: one that is not makes the verdict
UNKNOWN (exit 3). --metrics and --steps choose the rows checked.

Exit status: 0 no regression in the rows tested (the untested named), 1 a
regression, 2 unusable input or flags, or runs whose settings differ, 3
undecided: no checked row of figures could be tested, or, with
--require-tested, some could not (the verdict names the rows and why).`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			pathsA, pathsB, err := f.vs.sides(args)
			if err != nil {
				return err
			}
			return runCompare(c, &f, pathsA, pathsB)
		},
	}
	fl := c.Flags()
	f.vs.flags = fl
	fl.Var(&f.vs, "vs", "B's runs, the candidate's, after A's: compare A1 A2 A3 --vs B1 B2 B3 (every argument after --vs is one of B's)")
	fl.StringVar(&f.tolerance, "tolerance", "10%", "change of a median allowed before a significant change regresses, e.g. 10% (a bare number is a percentage too)")
	fl.Float64Var(&f.alpha, "alpha", report.DefaultAlpha, "significance level of the whole comparison: a change regresses only when p (the Mann-Whitney U test's) is below it, and p runs (the t-test's on the runs' medians) with several runs a side, each Holm–Bonferroni-corrected over the rows tested")
	fl.DurationVar(&f.minChange, "min-change", time.Millisecond, "smallest rise of a latency median that regresses, however significant: on a shared machine the scheduler moves percentiles of microsecond steps by about a timeslice from run to run (0 on a quiet machine)")
	fl.BoolVar(&f.requireTested, "require-tested", false, "every checked row of figures must be tested: one that cannot be (too few intervals or operations an interval, a step only one side has) makes the verdict UNKNOWN, exit 3, rather than no regression in the rows tested")
	fl.BoolVar(&f.allowSettings, "allow-different-settings", false, "compare runs whose load or fault settings differ, under a warning, rather than refuse")
	fl.StringVar(&f.format, "format", "text", "output: text or json")
	fl.StringVar(&f.metrics, "metrics", "", "comma-separated metrics that can regress (default all): throughput, "+strings.Join(report.LatencyMetrics, ", ")+", gap_rate, verdict")
	fl.StringVar(&f.steps, "steps", "", "comma-separated steps whose latency can regress (default all): "+stepNames())
	return c
}

func runCompare(c *cobra.Command, f *compareFlags, pathsA, pathsB []string) error {
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
	opt := report.CompareOptions{Tolerance: tol, Alpha: f.alpha, MinLatencyChange: float64(f.minChange) / float64(time.Millisecond), RequireTested: f.requireTested}
	known := append([]string{report.MetricThroughput, report.MetricGapRate, report.MetricVerdict}, report.LatencyMetrics...)
	if opt.Metrics, err = parseList("--metrics", f.metrics, known); err != nil {
		return err
	}
	if opt.Steps, err = parseList("--steps", f.steps, strings.Split(stepNames(), ", ")); err != nil {
		return err
	}
	runsA, err := loadSide(pathsA)
	if err != nil {
		return err
	}
	runsB, err := loadSide(pathsB)
	if err != nil {
		return err
	}
	sets, err := matchRuns(runsA, runsB)
	if err != nil {
		return err
	}
	for _, set := range sets {
		if err := samePooledSettings(set.A); err != nil {
			return err
		}
		if err := samePooledSettings(set.B); err != nil {
			return err
		}
	}
	cmp := report.Compare(runSets(sets), opt)
	cmp.A, cmp.B = pathsA, pathsB
	if refused := report.RefusedSettings(cmp.Settings); len(refused) > 0 && !f.allowSettings {
		lines := make([]string, len(refused))
		for i, d := range refused {
			lines[i] = "  " + d.String()
		}
		return badInput("%s and %s were not run alike; their figures would differ whatever the code does:\n%s\n(--allow-different-settings compares them anyway)", strings.Join(pathsA, " "), strings.Join(pathsB, " "), strings.Join(lines, "\n"))
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
	switch cmp.Verdict {
	case report.VerdictRegression:
		return exitError{ExitViolation}
	case report.VerdictUnknown:
		return exitError{ExitUnknown}
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

// savedRun is a run and the path it was read from.
type savedRun struct {
	path string
	report.Results
}

// loadRuns reads the runs at path: a results.json, a results directory, or
// a directory of per-target ones.
func loadRuns(path string) ([]savedRun, error) {
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
	runs := make([]savedRun, 0, len(files))
	for _, f := range files {
		r, err := report.ReadResults(f)
		if err != nil {
			return nil, badInput("%v", err)
		}
		path := f
		if filepath.Base(f) == report.ResultsFile {
			path = filepath.Dir(f)
		}
		runs = append(runs, savedRun{path, r})
	}
	return runs, nil
}

// loadSide reads each path of one side: a run, or a run per target.
func loadSide(paths []string) ([][]savedRun, error) {
	side := make([][]savedRun, len(paths))
	for i, p := range paths {
		runs, err := loadRuns(p)
		if err != nil {
			return nil, err
		}
		side[i] = runs
	}
	return side, nil
}

// matchedRuns are one target's runs on each side.
type matchedRuns struct{ A, B []savedRun }

// matchRuns matches the sides' runs by target. When every path holds a
// single run and each side is of one target, the sides are compared
// whatever their targets, so one design can be judged against another.
func matchRuns(a, b [][]savedRun) ([]matchedRuns, error) {
	if singleTarget(a) && singleTarget(b) {
		return []matchedRuns{{A: slices.Concat(a...), B: slices.Concat(b...)}}, nil
	}
	var targets []string
	byTarget := map[string]*matchedRuns{}
	for side, paths := range [][][]savedRun{a, b} {
		for _, runs := range paths {
			for _, r := range runs {
				m := byTarget[r.Run.Target]
				if m == nil {
					if side == 1 {
						continue // a target only B has: nothing to compare it with
					}
					m = &matchedRuns{}
					byTarget[r.Run.Target] = m
					targets = append(targets, r.Run.Target)
				}
				if side == 0 {
					m.A = append(m.A, r)
				} else {
					m.B = append(m.B, r)
				}
			}
		}
	}
	var out []matchedRuns
	var missing []string
	for _, t := range targets {
		if m := byTarget[t]; len(m.B) > 0 {
			out = append(out, *m)
		} else {
			missing = append(missing, t)
		}
	}
	if len(out) == 0 {
		return nil, badInput("the two sides share no target to compare")
	}
	if len(missing) > 0 {
		return nil, badInput("B has no run of target %s, which A has", strings.Join(missing, ", "))
	}
	return out, nil
}

// singleTarget: every path of the side holds one run, all of one target.
func singleTarget(side [][]savedRun) bool {
	for _, runs := range side {
		if len(runs) != 1 || runs[0].Run.Target != side[0][0].Run.Target {
			return false
		}
	}
	return true
}

// samePooledSettings refuses pooling runs of a side that are not runs of
// one command: their intervals would not be samples of one distribution.
func samePooledSettings(runs []savedRun) error {
	for _, r := range runs[1:] {
		if diffs := report.PoolDiffers(runs[0].Results, r.Results); len(diffs) > 0 {
			lines := make([]string, len(diffs))
			for i, d := range diffs {
				lines[i] = fmt.Sprintf("  %s: %s in %s, %s in %s", d.Setting, d.A, runs[0].path, d.B, r.path)
			}
			return badInput("%s and %s are on one side but were not run alike; a side pools runs of one command:\n%s", runs[0].path, r.path, strings.Join(lines, "\n"))
		}
	}
	return nil
}

func runSets(matched []matchedRuns) []report.RunSets {
	out := make([]report.RunSets, len(matched))
	for i, m := range matched {
		for _, r := range m.A {
			out[i].A = append(out[i].A, r.Results)
		}
		for _, r := range m.B {
			out[i].B = append(out[i].B, r.Results)
		}
	}
	return out
}

func argumentCount(n int) string {
	if n == 1 {
		return "1 argument"
	}
	return fmt.Sprintf("%d arguments", n)
}
