// Package evidence reruns a test's run until it shows what the test needs
// to see: a fault window that struck an operation, a leadership transfer, a
// duplicate republished. On a machine busy with other jobs one run may show
// none of it (the window passed while the writers were descheduled); such a
// run proves nothing either way, so it is neither a pass nor a failure: the
// test runs again, within a budget, and fails if no run showed it. Whatever
// a run must never do (a wrong verdict) still fails the test at once.
package evidence

import (
	"testing"
	"time"
)

// Budget bounds the reruns: at most Runs runs, and no new run once Within
// has passed since the first began.
type Budget struct {
	Runs   int
	Within time.Duration
}

// Default suits runs of a few seconds: a machine busy enough to starve
// five in a row (the race detector at load 37) rarely starves ten, and five
// minutes stays well inside test.sh's timeout.
var Default = Budget{Runs: 10, Within: 5 * time.Minute}

// Rerun calls run with the run's number (from 1) until it returns "" (it
// saw all it needed) and returns that number. A run whose faults follow a
// seed should take its seed from the number: the same seed plans the same
// faults again. A run returns what it did not
// see, in words; it reports anything wrong through t as usual, and a run
// that marked t failed ends the reruns. When the budget is spent without a
// run that saw everything, the test fails with what the last run missed.
func Rerun(t testing.TB, b Budget, run func(n int) (missing string)) int {
	t.Helper()
	began := time.Now()
	for n := 1; ; n++ {
		missing := run(n)
		if t.Failed() {
			t.FailNow()
		}
		if missing == "" {
			if n > 1 {
				t.Logf("run %d showed what the test needs (the earlier ones did not)", n)
			}
			return n
		}
		if n >= b.Runs || time.Since(began) >= b.Within {
			t.Fatalf("no run showed what the test needs (%d runs in %s); the last missed: %s",
				n, time.Since(began).Round(time.Millisecond), missing)
		}
		t.Logf("run %d is inconclusive, running again: %s", n, missing)
	}
}
