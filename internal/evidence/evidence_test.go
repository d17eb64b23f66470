package evidence

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// recorder is a testing.TB that records instead of failing: FailNow ends
// the call under test by a panic the test recovers.
type recorder struct {
	testing.TB
	failed bool
	fatal  string
	logs   []string
}

type failedNow struct{}

func (r *recorder) Helper()      {}
func (r *recorder) Failed() bool { return r.failed }
func (r *recorder) Errorf(format string, args ...any) {
	r.failed = true
}
func (r *recorder) FailNow() {
	r.failed = true
	panic(failedNow{})
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	r.FailNow()
}
func (r *recorder) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}

// rerun calls Rerun on a recorder and returns what it returned and how
// many runs it made.
func rerun(b Budget, run func(r *recorder, n int) string) (r *recorder, returned, runs int) {
	r = &recorder{}
	defer func() {
		if p := recover(); p != nil {
			if _, ok := p.(failedNow); !ok {
				panic(p)
			}
		}
	}()
	returned = Rerun(r, b, func(n int) string {
		runs = n
		return run(r, n)
	})
	return r, returned, runs
}

func TestRerunStopsAtTheFirstRunThatShowsTheEvidence(t *testing.T) {
	r, returned, runs := rerun(Budget{Runs: 5, Within: time.Minute}, func(_ *recorder, n int) string {
		if n < 3 {
			return "no throttled send"
		}
		return ""
	})
	if r.failed || returned != 3 || runs != 3 {
		t.Fatalf("failed %v, returned %d after %d runs; want a pass at run 3", r.failed, returned, runs)
	}
	if len(r.logs) != 3 || !strings.Contains(r.logs[0], "no throttled send") {
		t.Fatalf("logs %q: want each inconclusive run named and the conclusive one", r.logs)
	}
}

func TestRerunFailsWhenNoRunShowsTheEvidence(t *testing.T) {
	r, _, runs := rerun(Budget{Runs: 4, Within: time.Minute}, func(_ *recorder, n int) string {
		return fmt.Sprintf("run %d: no transfer", n)
	})
	if !r.failed || runs != 4 || !strings.Contains(r.fatal, "run 4: no transfer") || !strings.Contains(r.fatal, "4 runs") {
		t.Fatalf("failed %v after %d runs with %q; want a failure after 4 naming the last run's missing evidence", r.failed, runs, r.fatal)
	}
}

func TestRerunStopsWhenItsTimeIsSpent(t *testing.T) {
	r, _, runs := rerun(Budget{Runs: 100, Within: 0}, func(*recorder, int) string { return "nothing" })
	if !r.failed || runs != 1 {
		t.Fatalf("failed %v after %d runs; want a failure after one run once Within passed", r.failed, runs)
	}
}

// A wrong result is not inconclusive: the first run that fails the test
// ends it, though its evidence was missing.
func TestRerunStopsAtARunThatFailed(t *testing.T) {
	r, _, runs := rerun(Budget{Runs: 5, Within: time.Minute}, func(r *recorder, n int) string {
		r.Errorf("the correct core was judged invalid")
		return "no fault either"
	})
	if !r.failed || runs != 1 || r.fatal != "" {
		t.Fatalf("failed %v after %d runs (fatal %q); want the failed run to end it", r.failed, runs, r.fatal)
	}
}
