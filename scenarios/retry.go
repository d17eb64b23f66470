package scenarios

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"time"

	"github.com/chatseq/chatseq/internal/redact"
)

// maxRetries bounds a scenario's retries key: a threshold that needs more
// tries than this is not measuring the code.
const maxRetries = 10

// Attempt is one earlier run of a scenario that was run again (chatseq run
// --retries): what it measured and why it did not pass, kept so that a
// report shows every attempt, not only the one that counted.
type Attempt struct {
	Number     int               `json:"try"` // 1 for the first run
	Verdict    Verdict           `json:"verdict"`
	Seed       int64             `json:"seed"`
	ElapsedS   float64           `json:"elapsed_s"`
	Figures    Figures           `json:"figures"`
	Thresholds []ThresholdResult `json:"thresholds"`
	Problems   []string          `json:"problems"`
	// Dir is where the try's files were kept, <out>/<scenario>/try-N
	// (its history, results.json, latency.hlog, report.html: chatseq
	// report and compare read it), History its history; empty when
	// the results directory was a temporary one and was removed.
	Dir     string `json:"dir,omitempty"`
	History string `json:"history,omitempty"`
}

// Retryable reports whether a retry may run the scenario again: only when
// its invariants came out exactly as expected, none undecided, and only
// thresholds failed (throughput and latency bend with what else the
// machine runs; the invariants do not). A correctness failure, an
// undecided invariant or a run that could not be carried out is never run
// again: another try could hide it behind a pass.
func (o *Outcome) Retryable() bool {
	return o.Verdict == ThresholdFail && len(o.Failing) == 0 && o.Err == nil && o.Shrunk == nil
}

// attempt is o as an earlier attempt numbered n.
func (o *Outcome) attempt(n int) Attempt {
	a := Attempt{
		Number: n, Verdict: o.Verdict, Seed: o.Config.Seed, ElapsedS: o.Elapsed.Seconds(), Figures: o.Figures,
		Thresholds: slices.Clone(o.Thresholds), Problems: nonNil(slices.Clone(o.Problems)),
	}
	if a.Thresholds == nil {
		a.Thresholds = []ThresholdResult{}
	}
	return a
}

// RunRetrying runs a scenario, then runs it again, with the same seed and
// overrides, up to retries more times while it fails only its thresholds
// (Retryable). The outcome is the last attempt's, its earlier attempts in
// Attempts; progress, if set, is told of every attempt as it ends and
// whether it will be run again.
//
// Each earlier try's files are moved, before the next try overwrites
// them, into try-N below the scenario's results directory (keepTry), so
// that a scenario that passed on try 2 still shows what failed on try 1.
// The try-N directories an earlier chatseq run left there are removed
// first: they are not this run's.
func RunRetrying(ctx context.Context, sc *Scenario, opts Options, retries int, progress func(try int, o *Outcome, again bool)) *Outcome {
	if err := removeTries(filepath.Join(opts.OutDir, sc.Name)); err != nil {
		o := &Outcome{Scenario: sc, Overrides: opts.Overrides, Config: configFor(sc, opts.Overrides), Verdict: RunError, Err: err}
		o.Problems = []string{"the run could not be carried out: " + redact.Text(err.Error())}
		return o
	}
	return retry(ctx, retries, func() *Outcome { return Run(ctx, sc, opts) }, progress)
}

// retry is RunRetrying's loop over any way of making an attempt.
func retry(ctx context.Context, retries int, run func() *Outcome, progress func(int, *Outcome, bool)) *Outcome {
	var earlier []Attempt
	for n := 1; ; n++ {
		o := run()
		again := n <= retries && o.Retryable() && ctx.Err() == nil
		var a Attempt
		if again {
			a = o.attempt(n)
			if err := o.keepTry(&a); err != nil {
				// Another try would overwrite the files of this one.
				again = false
				o.Problems = append(o.Problems, fmt.Sprintf("not run again (--retries): try %d's files could not be kept: %s", n, redact.Text(err.Error())))
			}
		}
		if progress != nil {
			progress(n, o, again)
		}
		if !again {
			o.Attempts = earlier
			return o
		}
		earlier = append(earlier, a)
	}
}

// tryDir names a kept try's directory inside a scenario's results
// directory.
var tryDir = regexp.MustCompile(`^try-[0-9]+$`)

// TryDir is where try n of a scenario whose results directory is dir is
// kept once another try runs.
func TryDir(dir string, n int) string { return filepath.Join(dir, fmt.Sprintf("try-%d", n)) }

// keepTry moves everything the try wrote into its results directory
// (history, results.json, latency.hlog, report.html, the drawings) to
// TryDir, where the next try does not overwrite it, and records there in
// a. The files keep their names and relative links: chatseq report and
// chatseq compare read the try's directory as any other. An outcome
// without a directory (none was written) keeps nothing.
func (o *Outcome) keepTry(a *Attempt) error {
	if o.Dir == "" {
		return nil
	}
	dst := TryDir(o.Dir, a.Number)
	entries, err := os.ReadDir(o.Dir)
	if err != nil {
		return err
	}
	if err := os.Mkdir(dst, 0o755); err != nil {
		return err
	}
	for _, e := range entries {
		if tryDir.MatchString(e.Name()) {
			continue // an earlier try's, kept already
		}
		if err := os.Rename(filepath.Join(o.Dir, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			return err
		}
	}
	a.Dir = dst
	if o.History != "" {
		a.History = filepath.Join(dst, filepath.Base(o.History))
	}
	return nil
}

// removeTries removes the try-N directories an earlier run left in a
// scenario's results directory dir (absent is fine).
func removeTries(dir string) error {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() && tryDir.MatchString(e.Name()) {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// Tries is how many times the scenario ran: 1 unless it was retried.
func (o *Outcome) Tries() int { return len(o.Attempts) + 1 }

// TotalElapsed is the time every attempt took together.
func (o *Outcome) TotalElapsed() time.Duration {
	d := o.Elapsed
	for _, a := range o.Attempts {
		d += time.Duration(a.ElapsedS * float64(time.Second))
	}
	return d
}
