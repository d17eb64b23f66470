package scenarios

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/internal/redact"
	"github.com/chatseq/chatseq/report"
	"github.com/chatseq/chatseq/targets"
	"github.com/chatseq/chatseq/targets/httptarget"
)

// Outcome is one scenario run and judged.
type Outcome struct {
	Scenario *Scenario
	// Config is what actually ran, overrides applied.
	Config     bench.Config
	Overrides  Overrides
	Verdict    Verdict
	Problems   []string // why the verdict is not pass, one line each
	Thresholds []ThresholdResult
	Check      checker.Report
	Figures    Figures
	Dir        string // the scenario's results directory (report.SaveRun)
	History    string // the history file, inside Dir
	Lines      int    // its line count
	Elapsed    time.Duration
	Err        error // set when Verdict is RunError
	// Failing lists the invariants that failed against the expectation:
	// what a shrink keeps failing.
	Failing []string
	Shrunk  *ShrinkResult
	// Attempts are the earlier runs of this scenario when it was retried
	// for failing only thresholds (RunRetrying), first first; this
	// outcome is the last attempt, the one that counts.
	Attempts []Attempt
	// Online is the first violation of each invariant the online check
	// found while the writers ran (the report's online block).
	Online []checker.Violation
	// StoppedEarly says why the writers stopped before the scenario's
	// end (fail_fast: the online check's first violation), or "".
	StoppedEarly string
	// unjudged says why the run judged nothing of the target or of its
	// push channel (report.Unjudged: no persist acknowledged, nothing
	// streamed, no live stream judged): a pass of nothing, which expect:
	// pass does not take.
	unjudged string
	// interrupted: Ctrl-C stopped the writers early (bench.Result),
	// after writersElapsed.
	interrupted    bool
	writersElapsed time.Duration
	// required: the invariants chatseq run's --require names, which the
	// scenario's allow_unknown does not waive.
	required []string
	// logicalOps is how many operations the writers began (retries and
	// duplicates of one message count once): where a shrink of a timed
	// scenario starts.
	logicalOps int
}

// Run runs one scenario and judges it.
func Run(ctx context.Context, sc *Scenario, opts Options) *Outcome {
	began := time.Now()
	o := &Outcome{Scenario: sc, Overrides: opts.Overrides, Config: configFor(sc, opts.Overrides), required: opts.CheckOptions.Require}
	o.Dir = filepath.Join(opts.OutDir, sc.Name)
	o.History = filepath.Join(o.Dir, report.HistoryFile)
	vizDir := filepath.Join(o.Dir, report.VisualizeDir)
	var res *bench.Result
	var rep checker.Report
	var describe string
	err := prepareDir(o.Dir, vizDir)
	if err == nil {
		res, rep, describe, o.Online, err = execute(ctx, sc, o.Config, o.History, vizDir, opts)
	}
	o.Elapsed = time.Since(began)
	if err != nil {
		o.Verdict, o.Err = RunError, err
		o.Problems = []string{"the run could not be carried out: " + redact.Text(err.Error())}
		return o
	}
	o.Check = rep
	if res.StoppedForViolation != "" {
		o.StoppedEarly = fmt.Sprintf("the writers stopped after %.1fs: %s", res.Elapsed.Seconds(), res.StoppedForViolation)
	}
	o.Lines, _ = countLines(o.History)
	o.unjudged = report.Unjudged(res, rep)
	o.interrupted, o.writersElapsed = res.Interrupted, res.Elapsed
	c := res.Counts
	o.logicalOps = int(c.Persists - c.Retries - c.DuplicatesSent - c.ConcurrentDuplicates + c.Syncs)
	m := NewMetrics(res, rep, true, sc.InitialCounter)
	o.Figures = m.Figures()
	judge(o, m)
	if err := saveResults(o, res, report.FromBench(res, describe, rep)); err != nil {
		o.Verdict, o.Err = RunError, err
		o.Problems = append(o.Problems, "the results directory could not be written: "+redact.Text(err.Error()))
	}
	return o
}

// prepareDir makes the scenario's results directory and removes the
// drawings a previous run left there, so its report links only this run's.
func prepareDir(dir, vizDir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(vizDir, "linearizability-*.html"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	return nil
}

// saveResults writes results.json, latency.hlog and report.html beside the
// scenario's history, as bench --out does, so that chatseq report and
// chatseq compare read a scenario's run too.
func saveResults(o *Outcome, res *bench.Result, b report.Bench) error {
	b.Thresholds = o.Thresholds
	b.Online = append([]checker.Violation{}, o.Online...) // [] rather than null: it ran
	saved, err := report.SaveRun(o.Dir, res, b, Command(o.Scenario.File, o.Overrides))
	if err != nil {
		return err
	}
	return saved.WriteReport(time.Now())
}

// configFor is the scenario's bench configuration with overrides applied.
func configFor(sc *Scenario, ov Overrides) bench.Config {
	cfg := sc.Config()
	if ov.Seed != nil {
		cfg.Seed = *ov.Seed
	}
	if ov.Target != "" {
		cfg.Target = ov.Target
	}
	if ov.Writers > 0 {
		cfg.Writers = ov.Writers
	}
	if ov.Ops > 0 {
		cfg.Ops = ov.Ops
	}
	if ov.Chats > 0 {
		cfg.Chats = ov.Chats
	}
	return cfg
}

// execute opens the target, drives it, and checks the history it wrote.
// vizDir, if set, receives porcupine's drawings of chats that are not
// linearizable. It returns the target's description for the report and
// what the online check found.
func execute(ctx context.Context, sc *Scenario, cfg bench.Config, historyPath, vizDir string, opts Options) (*bench.Result, checker.Report, string, []checker.Violation, error) {
	cfg.HistoryPath = historyPath
	if err := cfg.Validate(); err != nil {
		return nil, checker.Report{}, "", nil, err
	}
	reach := opts.Open // target http's URL, mapping, headers, TLS, timeouts
	reach.Store, reach.DSN = opts.Store, opts.DSN
	var opened *targets.Opened
	var shared bool
	var release func()
	var err error
	if sc.Serve && cfg.Target != httptarget.Name {
		// Its own chatseq serve, never shared (--target http instead
		// drives the service of chatseq run's --url or --serve).
		served, err := startServed(ctx, sc, &cfg, opts)
		if err != nil {
			return nil, checker.Report{}, "", nil, err
		}
		defer served.close()
		if opened, err = targets.Open(ctx, cfg.Target, served.reach); err != nil {
			return nil, checker.Report{}, "", nil, err
		}
		shared, release = true, func() { opened.Close() }
		opts.Brokers = served.brokers
	} else if opened, shared, release, err = opts.Targets.open(ctx, cfg.Target, reach); err != nil {
		return nil, checker.Report{}, "", nil, err
	}
	defer release()
	if err := opened.CheckKills(cfg.Timed); err != nil {
		return nil, checker.Report{}, "", nil, err
	}
	if opened.Remote && !cfg.KafkaOff {
		cfg.Brokers = opts.Brokers
	}
	if opened.NoTopicToRead(cfg.Brokers) {
		cfg.KafkaOff = true
	}
	if shared {
		// Tables other runs use: chats of this run's own, so it starts
		// empty.
		cfg.ChatPrefix = "scn" + strconv.FormatInt(time.Now().UnixNano(), 36) + "-chat-"
	}
	cfg.Contract, cfg.Claims = sc.Contract.Over(opened.Contract), opened.Claims
	if opened.Topic != "" {
		cfg.Topic = opened.Topic
	}
	cfg.Metrics = opts.Metrics
	// The check reads the history as it is written, as bench's does, and
	// judges what operations alone prove while the writers run.
	// notify runs on the tap's goroutine alone.
	var told func(checker.Violation)
	if opts.Live != nil {
		cfg.Progress, told = opts.Live(sc)
	}
	stop, stopped := make(chan struct{}), false
	online := checker.NewOnline(func(v checker.Violation) {
		opts.Metrics.Violation(v.Invariant)
		if told != nil {
			told(v)
		}
		if !stopped {
			stopped = true
			close(stop)
		}
	})
	if sc.FailFast {
		cfg.Stop = stop
	}
	feed := checker.NewOnlineFeed(historyPath, online)
	cfg.HistoryTap = feed.Tap()
	res, err := bench.RunTarget(ctx, cfg, opened.Factory)
	if err != nil {
		feed.Discard()
		return nil, checker.Report{}, "", nil, err
	}
	opt := opts.CheckOptions
	opt.Require = append(slices.Clone(opt.Require), sc.Require...)
	opt.VisualizeDir = vizDir
	opt.Interval = res.IntervalLength // allocations and gaps per interval, for the report
	checked := opts.Metrics.Checking(historyPath)
	rep, _, err := feed.Check(opt)
	if err != nil {
		checked(nil)
		return nil, checker.Report{}, "", nil, fmt.Errorf("reading back the history: %w", err)
	}
	// Read once the feed has every line: the online check judges the last
	// of its keys from the tap's goroutine until then.
	if vs := online.Violations(); sc.FailFast && res.StoppedEarlyByStop && len(vs) > 0 {
		res.StoppedForViolation = fmt.Sprintf("the online check found %s violated at line %d", vs[0].Invariant, vs[0].Lines[len(vs[0].Lines)-1])
	}
	rep = report.JudgedRun(res, rep)
	checked(&rep)
	return res, rep, opened.Describe, online.Violations(), nil
}

// countLines counts a file's lines.
func countLines(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	n := 0
	for {
		k, err := f.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}
