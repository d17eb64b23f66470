package checkertest

import (
	"testing"

	"github.com/chatseq/chatseq/checker"
)

// recordingTB notes a fatal instead of stopping the test.
type recordingTB struct {
	testing.TB
	failed string
}

func (r *recordingTB) Helper() {}
func (r *recordingTB) Fatalf(format string, args ...any) {
	r.failed = format
	panic(r)
}

func fails(f func(tb testing.TB)) (failed bool) {
	tb := &recordingTB{}
	defer func() {
		if p := recover(); p != nil {
			if p != tb {
				panic(p)
			}
			failed = true
		}
	}()
	f(tb)
	return false
}

func TestRequireValidAndVerdict(t *testing.T) {
	yes, no := true, false
	valid := checker.Report{Valid: &yes, Invariants: []checker.Result{{Name: "a", Status: checker.Pass}}}
	broken := checker.Report{Valid: &no, Invariants: []checker.Result{{Name: "a", Status: checker.Fail, Detail: "dup"}}}
	if fails(func(tb testing.TB) { RequireValid(tb, valid) }) {
		t.Error("a valid report failed RequireValid")
	}
	if !fails(func(tb testing.TB) { RequireValid(tb, broken) }) {
		t.Error("a failing invariant passed RequireValid")
	}
	if r := Verdict(t, broken, "a"); r.Status != checker.Fail {
		t.Errorf("Verdict gave %+v", r)
	}
	if !fails(func(tb testing.TB) { Verdict(tb, valid, "missing") }) {
		t.Error("Verdict of an invariant the report lacks did not fail")
	}
}
