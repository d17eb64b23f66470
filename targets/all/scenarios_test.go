package all_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatseq/chatseq/internal/evidence"
	"github.com/chatseq/chatseq/scenarios"
	"github.com/chatseq/chatseq/targets"
	_ "github.com/chatseq/chatseq/targets/all"
)

// Importing the package registers both designs.
func TestRegistersTheTargets(t *testing.T) {
	for _, name := range []string{"postgres", "ledger"} {
		if !targets.Known(name) {
			t.Errorf("%s is not registered (known: %v)", name, targets.Names())
		}
	}
}

// The shipped postgres-*.yaml and ledger-*.yaml scenarios decode and meet
// their expectations and thresholds. (scenarios' own shipped test runs them
// too once that package imports this one.)
func TestShippedTargetScenarios(t *testing.T) {
	var files []string
	for _, pattern := range []string{"postgres-*.yaml", "ledger-*.yaml"} {
		m, err := filepath.Glob(filepath.Join("..", "..", "scenarios", pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 3 {
		t.Fatalf("found only %v", files)
	}
	scs, err := scenarios.Load(files)
	if err != nil {
		t.Fatalf("a scenario does not decode:\n%v", err)
	}
	cache := scenarios.NewTargetCache()
	defer cache.Close()
	// A throwaway PostgreSQL cluster starts within the test's time (on a
	// machine busy with other jobs initdb outlasted the fixture's own two
	// minutes and was killed).
	ctx, cancel := context.Background(), context.CancelFunc(func() {})
	if deadline, ok := t.Deadline(); ok {
		ctx, cancel = context.WithDeadline(ctx, deadline.Add(-time.Minute))
	}
	defer cancel()
	for _, sc := range scs {
		// A run the machine starved of what a scenario needs to happen
		// (a "> 0" threshold: a gap, a late commit) proves nothing either
		// way: it runs again with the next seed. Any other problem fails.
		evidence.Rerun(t, evidence.Default, func(n int) string {
			opts := scenarios.Options{OutDir: t.TempDir(), Targets: cache}
			if n > 1 {
				seed := sc.Seed + int64(n-1)
				opts.Overrides.Seed = &seed
			}
			o := scenarios.Run(ctx, sc, opts)
			if o.Verdict == scenarios.Pass {
				return ""
			}
			if missing := missingEvidence(sc, o); missing != "" {
				return fmt.Sprintf("%s: %s", sc.Name, missing)
			}
			t.Errorf("%s: %s\n  %s", sc.Name, o.Verdict, strings.Join(o.Problems, "\n  "))
			return ""
		})
	}
}

// missingEvidence names the "> 0" thresholds (something the run must
// make happen) that o did not meet, when they explain its verdict: every
// threshold that failed is one, and either the invariants came out as
// expected or the scenario expects a violation (which needs what did not
// happen). "" otherwise.
func missingEvidence(sc *scenarios.Scenario, o *scenarios.Outcome) string {
	if o.Verdict != scenarios.ThresholdFail && (o.Verdict != scenarios.Fail || !sc.Expect.Negative()) {
		return ""
	}
	evidenceLines := map[int]bool{}
	for _, th := range sc.Thresholds {
		if th.Op == ">" && th.Value == 0 {
			evidenceLines[th.Line] = true
		}
	}
	var missed []string
	for _, r := range o.Thresholds {
		if r.OK {
			continue
		}
		if !evidenceLines[r.Line] {
			return ""
		}
		missed = append(missed, fmt.Sprintf("%s (measured %s)", r.Expr, r.Actual))
	}
	if len(missed) == 0 {
		return ""
	}
	return "nothing made " + strings.Join(missed, ", ") + " hold"
}
