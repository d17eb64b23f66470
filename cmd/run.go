package cmd

import (
	"fmt"
	"github.com/chatseq/chatseq/targets/postgres"
	"io"
	"math"
	"os"
	"os/signal"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/scenarios"
	"github.com/chatseq/chatseq/storeopen"
	"github.com/chatseq/chatseq/targets"
)

type runFlags struct {
	junit       string
	format      string
	out         string
	seed        int64
	writers     int
	ops         int
	chats       int
	target      string
	store       storeopen.Options
	dsn         string
	shrink      bool
	shrinkRuns  int
	shrinkTime  time.Duration
	lin         linFlags
	overrides   scenarios.Overrides
	keepHistory bool // --out given: never delete it
	metrics     metricsFlag
	http        httpFlags
	brokers     string // the Kafka a remote target publishes to
	retries     int
}

func newRunCommand() *cobra.Command {
	var f runFlags
	c := &cobra.Command{
		Use:   "run [FILE|DIR]...",
		Short: "Run scenario files and judge each against its expectation and thresholds",
		Long: `run reads scenario files (strict YAML, docs/scenarios.md), runs each one,
checks its history and judges it: the invariants must come out as the
scenario expects (all pass, or the listed ones fail) and every threshold must
hold. Directories are searched recursively for *.yaml and *.yml (skipping
testdata and names starting with "." or "_"); the default is ./scenarios.

Every failure prints the command that reproduces it. --seed, --writers, --ops
and --chats override every scenario, to replay a failure or a shrunk run.

A scenario's fail_fast: true stops its writers at the online check's first
violation (bench --fail-fast), and its schedule's variant_on switches a
broken variant on for a window ({fault: variant_on, at: 30s, for: 10m,
variant: racy-counter}): together, a rehearsal of a long run that goes
wrong at a known time. The summary says when a scenario stopped early.

--retries N (or a scenario's retries: N key, which the flag replaces) runs a
scenario again, with the same seed, up to N more times while only its
thresholds fail (a machine busy with other jobs slows throughput and
latency; it does not break invariants). An invariant failure, an undecided
invariant or a run that could not be carried out is never run again. Every
try is reported: in the text, in JSON's tries and earlier_tries, and in
JUnit as Maven Surefire's <flakyFailure> (passed on a later try: counts as
passed) or <rerunFailure> (failed every try). Each earlier try's files
(history, results.json, report.html) are kept in OUT/NAME/try-N, named in
all three; OUT/NAME holds the try that counts. A temporary results
directory is kept when a scenario passed only on a retry.

Exit status: 0 every scenario passed (on some try), 1 an invariant
expectation failed, 2 bad input (with file:line), 3 a needed invariant was
undecided, 4 only thresholds failed (on every try), 5 a scenario could not
be run.`,
		RunE: func(c *cobra.Command, args []string) error { return runScenarios(c, &f, args) },
	}
	fl := c.Flags()
	fl.StringVar(&f.junit, "junit", "", "write a JUnit XML report to this file")
	fl.StringVar(&f.format, "format", "text", "output: text or json")
	fl.StringVar(&f.out, "out", "", "keep a results directory per scenario here, DIR/NAME (history, results.json, latency.hlog, report.html: chatseq report and compare read it); default: a temporary directory, kept only if something failed, an earlier try included")
	fl.Int64Var(&f.seed, "seed", 0, "override every scenario's seed")
	fl.IntVar(&f.writers, "writers", 0, "override every scenario's writers")
	fl.IntVar(&f.ops, "ops", 0, "override every scenario's operation count (with a duration, whichever ends first)")
	fl.IntVar(&f.chats, "chats", 0, "override every scenario's chats")
	fl.StringVar(&f.target, "target", "", "run every scenario against this target instead: "+strings.Join(targets.Names(), ", "))
	addStoreFlags(fl, &f.store)
	fl.StringVar(&f.dsn, "dsn", "", "PostgreSQL connection string for PostgreSQL targets")
	f.http.register(fl)
	fl.StringVar(&f.brokers, "brokers", "", "comma-separated brokers of the Kafka cluster --target http's service publishes to, read back after each scenario")
	fl.IntVar(&f.retries, "retries", 0, "run a scenario that failed only thresholds again, up to N more times (never one whose invariants failed); replaces each scenario's retries key")
	fl.BoolVar(&f.shrink, "shrink", false, "on an invariant failure, search for a smaller failing run (fewer operations, writers, chats) and keep its history")
	fl.IntVar(&f.shrinkRuns, "shrink-runs", 60, "most runs one shrink may make")
	fl.DurationVar(&f.shrinkTime, "shrink-time", 2*time.Minute, "most time one shrink may take")
	f.lin.register(fl, "porcupine's time budget in each check")
	f.metrics.register(fl)
	return c
}

func (f *runFlags) resolve(c *cobra.Command) error {
	if f.format != "text" && f.format != "json" {
		return badInput("--format must be text or json, got %q", f.format)
	}
	if err := f.lin.resolve(); err != nil {
		return err
	}
	if err := postgres.CheckDSN(f.dsn); err != nil {
		return usageError{err}
	}
	if f.retries < 0 {
		return badInput("--retries must be 0 or more, got %d", f.retries)
	}
	if f.shrinkRuns < 1 || f.shrinkTime <= 0 {
		return badInput("--shrink-runs and --shrink-time must be positive")
	}
	for _, n := range []struct {
		flag   string
		v, max int
	}{{"--writers", f.writers, bench.MaxWriters}, {"--ops", f.ops, math.MaxInt}, {"--chats", f.chats, bench.MaxChats}} {
		switch changed := c.Flags().Changed(strings.TrimPrefix(n.flag, "--")); {
		case changed && n.v < 1:
			return badInput("%s must be at least 1, got %d", n.flag, n.v)
		case changed && n.v > n.max:
			return badInput("%s must be from 1 to %d, got %d", n.flag, n.max, n.v)
		}
	}
	fl := c.Flags()
	if fl.Changed("seed") {
		f.overrides.Seed = &f.seed
	}
	f.overrides.Writers, f.overrides.Ops, f.overrides.Chats = f.writers, f.ops, f.chats
	switch {
	case fl.Changed("target") && fl.Changed("store"):
		return badInput("give --target or --store, not both (--store X is --target X)")
	case fl.Changed("target"):
		if !targets.Known(f.target) {
			return badInput("--target: unknown target %q (known: %s)", f.target, strings.Join(targets.Names(), ", "))
		}
		f.overrides.Target = f.target
	case fl.Changed("store"):
		f.overrides.Target = f.store.Kind
	}
	if err := f.store.Validate(); err != nil {
		return usageError{err}
	}
	if err := f.http.resolve(&bench.Config{}); err != nil {
		return err
	}
	// Flags a repro command must repeat to run against the same thing.
	repeat := []string{"endpoint", "region", "profile", "sdk-max-attempts", "table-prefix", "dsn", "url", "api", "serve", "nemesis-cmd",
		"header", "insecure", "ca-cert", "client-cert", "client-key", "http-timeout", "max-answer-bytes", "brokers", "lin-checker", "lin-timeout", "lin-memory"}
	for _, cf := range serviceStatedFields() {
		repeat = append(repeat, cf.Flag) // --key-scope, --key-reuse, …
	}
	for _, name := range repeat {
		if flag := fl.Lookup(name); flag != nil && flag.Changed {
			values := []string{flag.Value.String()}
			if sv, ok := flag.Value.(pflag.SliceValue); ok {
				values = sv.GetSlice() // --header, once per header
			}
			for _, v := range values {
				if flag.Value.Type() == "bool" {
					// One word: a bool's value as a second word is a FILE.
					f.overrides.Flags = append(f.overrides.Flags, "--"+name+"="+v)
					continue
				}
				f.overrides.Flags = append(f.overrides.Flags, "--"+name, v)
			}
		}
	}
	f.overrides.Flags = append(f.overrides.Flags, f.lin.requireArgs()...)
	return nil
}

func runScenarios(c *cobra.Command, f *runFlags, args []string) error {
	if err := f.resolve(c); err != nil {
		return err
	}
	if len(args) == 0 {
		args = []string{scenarios.DefaultDir}
	}
	files, err := scenarios.Collect(args)
	if err != nil {
		return badInput("%v", err)
	}
	scs, err := scenarios.Load(files)
	if err != nil {
		return usageError{err}
	}
	if err := refuseFlagsNoScenarioReads(c.Flags(), f.scenarioTargets(scs)); err != nil {
		return err
	}
	for _, sc := range scs {
		for _, n := range sc.Notes {
			c.PrintErrln("note: " + n)
		}
	}
	outDir, temporary, err := f.outDir()
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt)
	defer stop()
	exporter, err := f.metrics.start(ctx, c.ErrOrStderr())
	if err != nil {
		return err
	}
	cache := scenarios.NewTargetCache()
	defer cache.Close()
	opts := scenarios.Options{
		OutDir: outDir, Store: withStatus(f.store, c.ErrOrStderr()), DSN: f.dsn, Open: f.http.options(targets.Options{}), Brokers: splitList(f.brokers),
		CheckOptions: f.lin.options(), Overrides: f.overrides, Targets: cache,
		Metrics: exporter, ServeCommand: serveCommand,
		Live: func(sc *scenarios.Scenario) (func(bench.Progress), func(checker.Violation)) {
			return scenarioProgress(c.ErrOrStderr(), sc.Name)
		},
	}
	started := time.Now()
	sum := &scenarios.Summary{OutDir: outDir}
	progress := c.ErrOrStderr()
	for _, sc := range scs {
		if ctx.Err() != nil {
			break
		}
		retries := sc.Retries
		if c.Flags().Changed("retries") {
			retries = f.retries
		}
		o := scenarios.RunRetrying(ctx, sc, opts, retries, func(try int, o *scenarios.Outcome, again bool) {
			if again {
				fmt.Fprintf(progress, "%-40s %-9s %5.1fs  (try %d: only thresholds failed; running it again)\n", sc.Name, strings.ToUpper(string(o.Verdict)), o.Elapsed.Seconds(), try)
			}
		})
		if f.shrink && o.Verdict == scenarios.Fail && len(o.Failing) > 0 {
			fmt.Fprintf(progress, "%-40s shrinking…\n", sc.Name)
			o.Shrunk = scenarios.Shrink(ctx, o, opts, scenarios.ShrinkOptions{MaxRuns: f.shrinkRuns, Budget: f.shrinkTime})
		}
		tries := ""
		if o.Tries() > 1 {
			tries = fmt.Sprintf("  (try %d)", o.Tries())
		}
		fmt.Fprintf(progress, "%-40s %-9s %5.1fs%s\n", sc.Name, strings.ToUpper(string(o.Verdict)), o.Elapsed.Seconds(), tries)
		sum.Outcomes = append(sum.Outcomes, o)
	}
	sum.Elapsed = time.Since(started)
	interrupted := ctx.Err() != nil
	if interrupted {
		// What ran is still summed up (and in the JUnit file); the exit
		// status says the run was cut short.
		fmt.Fprintf(progress, "run: interrupted after %d of %d scenarios; histories in %s\n", len(sum.Outcomes), len(scs), outDir)
	}

	worst := sum.Worst()
	if temporary && !interrupted && !sum.WorthKeeping() {
		// Nothing to look at (no failure, no failed earlier try): do not
		// leave histories behind.
		os.RemoveAll(outDir)
		sum.HistoriesRemoved()
	}
	if f.junit != "" {
		if err := writeJUnitFile(f.junit, sum, started); err != nil {
			return err
		}
	}
	out := c.OutOrStdout()
	if f.format == "json" {
		err = scenarios.WriteJSON(out, sum)
	} else {
		err = scenarios.WriteText(out, sum)
	}
	if err != nil {
		return err
	}
	code := runExitCode(worst)
	if interrupted && code != ExitViolation {
		code = ExitInterruptedRun // fewer scenarios, or a shorter one, than asked for
	}
	if code != ExitOK {
		return exitError{code}
	}
	return nil
}

// scenarioTargets are the targets the scenarios run against, each once:
// --target's, or each scenario's own.
func (f *runFlags) scenarioTargets(scs []*scenarios.Scenario) []string {
	if f.overrides.Target != "" {
		return []string{f.overrides.Target}
	}
	var names []string
	for _, sc := range scs {
		names = append(names, sc.Target)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// outDir makes the history directory: --out, or a temporary one.
func (f *runFlags) outDir() (dir string, temporary bool, err error) {
	if f.out != "" {
		if err := os.MkdirAll(f.out, 0o755); err != nil {
			return "", false, badInput("--out: %v", err)
		}
		return f.out, false, nil
	}
	dir, err = os.MkdirTemp("", "chatseq-run-")
	if err != nil {
		return "", false, fmt.Errorf("run: %w", err)
	}
	return dir, true, nil
}

func writeJUnitFile(path string, sum *scenarios.Summary, started time.Time) error {
	file, err := os.Create(path)
	if err != nil {
		return badInput("--junit: %v", err)
	}
	werr := scenarios.WriteJUnit(file, sum, started)
	if cerr := file.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("--junit: %w", werr)
	}
	return nil
}

// runExitCode maps the run's worst verdict to the exit status.
func runExitCode(v scenarios.Verdict) int {
	switch v {
	case scenarios.Fail:
		return ExitViolation
	case scenarios.RunError:
		return ExitRunError
	case scenarios.Undecided:
		return ExitUnknown
	case scenarios.ThresholdFail:
		return ExitThresholds
	case scenarios.Interrupted:
		return ExitInterruptedRun
	}
	return ExitOK
}

// serveCommand runs this binary's chatseq serve with args, for the
// scenarios that serve their design (serve: true).
var serveCommand = func(args []string) string {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	words := []string{scenarios.ShellQuote(exe), "serve"}
	for _, a := range args {
		words = append(words, scenarios.ShellQuote(a))
	}
	return strings.Join(words, " ")
}

// scenarioProgress shows one scenario's run while its writers go, as
// bench shows its own: a line drawn in place on a terminal (cleared when
// the writers are done, for the scenario's verdict line), a plain line
// every few seconds otherwise (a long scenario in a CI log), and each
// invariant's first violation the moment the online check finds it.
func scenarioProgress(w io.Writer, name string) (func(bench.Progress), func(checker.Violation)) {
	p := newProgressPrinter(w)
	p.dropDone = true
	return func(pr bench.Progress) {
			pr.Target = name
			p.update(pr)
		}, func(v checker.Violation) {
			p.violation(name, v)
		}
}
