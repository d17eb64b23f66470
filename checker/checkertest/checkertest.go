// Package checkertest has the assertions tests of targets make about a
// checked history.
package checkertest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/checker"
)

// Verdict returns the named invariant's result, failing t if the report
// has none.
func Verdict(t testing.TB, rep checker.Report, name string) checker.Result {
	t.Helper()
	r, ok := rep.Result(name)
	if !ok {
		t.Fatalf("no %s in the report", name)
	}
	return r
}

// RequireValid fails t with every invariant that did not pass.
func RequireValid(t testing.TB, rep checker.Report) {
	t.Helper()
	if rep.Valid != nil && *rep.Valid {
		return
	}
	var bad []string
	for _, r := range rep.Invariants {
		if r.Status != checker.Pass {
			bad = append(bad, fmt.Sprintf("%s %s: %s (lines %v)", r.Name, r.Status, r.Detail, r.Lines))
		}
	}
	t.Fatalf("history not valid:\n%s\nwarnings: %v", strings.Join(bad, "\n"), rep.Warnings)
}
