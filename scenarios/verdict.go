package scenarios

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/target"
)

// Verdict is a scenario's result.
type Verdict string

const (
	Pass Verdict = "pass"
	// Fail: the invariants did not come out as expected (a violation in a
	// pass scenario, or a negative scenario whose violation is no longer
	// caught).
	Fail Verdict = "fail"
	// Undecided: nothing failed, but an invariant the scenario needs was
	// unknown.
	Undecided Verdict = "unknown"
	// ThresholdFail: the invariants came out as expected; a threshold did
	// not hold.
	ThresholdFail Verdict = "threshold"
	// RunError: the scenario could not be run.
	RunError Verdict = "error"
	// Interrupted: Ctrl-C stopped the writers early and nothing failed:
	// a shorter run than the scenario asks for, which CI must not take
	// for a pass (chatseq run exits 6, as bench does).
	Interrupted Verdict = "interrupted"
)

// judge sets the verdict from the check, the expectation and thresholds.
func judge(o *Outcome, m *Metrics) {
	sc := o.Scenario
	failed, undecided := false, false
	if sc.Expect.Negative() {
		for _, name := range sc.Expect.Violates {
			res, ok := o.Check.Result(name)
			switch {
			case !ok:
				failed = true
				o.Problems = append(o.Problems, fmt.Sprintf("%s was expected to fail but was not judged%s", name, notApplicableReason(o.Check, name)))
			case res.Status != checker.Fail:
				failed = true
				what := "the violation is no longer caught"
				if sc.Variant != "" && !sc.Design {
					what = fmt.Sprintf("broken behaviour %s is no longer caught", sc.Variant)
				}
				o.Problems = append(o.Problems, fmt.Sprintf("%s was expected to fail but is %s: %s (%s)%s", name, res.Status, what, res.Detail, o.unopenedWindows()))
			}
		}
	} else {
		for _, res := range o.Check.Invariants {
			switch {
			case res.Status == checker.Fail:
				failed = true
				o.Failing = append(o.Failing, res.Name)
				o.Problems = append(o.Problems, fmt.Sprintf("%s failed: %s%s", res.Name, res.Detail, linesNote(res.Lines)))
			case res.Status == checker.Unknown && (!slices.Contains(sc.AllowUnknown, res.Name) || slices.Contains(o.required, res.Name)):
				// (--require outranks allow_unknown, as one file may not
				// hold both: an unknown it names was waived, and run
				// passed what it was asked to require.)
				undecided = true
				o.Problems = append(o.Problems, fmt.Sprintf("%s is unknown: %s", res.Name, res.Detail))
			}
		}
		if why := o.unjudged; why != "" && !failed {
			undecided = true
			o.Problems = append(o.Problems, why)
		}
	}
	thresholdFailed := false
	for _, t := range sc.Thresholds {
		r := t.Evaluate(m)
		o.Thresholds = append(o.Thresholds, r)
		if !r.OK {
			thresholdFailed = true
			o.Problems = append(o.Problems, fmt.Sprintf("threshold %q (line %d) does not hold: measured %s", r.Expr, r.Line, r.Actual))
		}
	}
	switch {
	case failed:
		o.Verdict = Fail
	case o.interrupted:
		o.Verdict = Interrupted
		o.Problems = append(o.Problems, fmt.Sprintf("interrupted: the writers stopped after %.1fs (Ctrl-C), a shorter run than the scenario asks for", o.writersElapsed.Seconds()))
	case undecided:
		o.Verdict = Undecided
	case thresholdFailed:
		o.Verdict = ThresholdFail
	default:
		o.Verdict = Pass
	}
}

func notApplicableReason(rep checker.Report, name string) string {
	for _, na := range rep.NotApplicable {
		if na.Name == name {
			return " (not applicable: " + na.Reason + ")"
		}
	}
	return ""
}

func linesNote(lines []int) string {
	if len(lines) == 0 {
		return ""
	}
	const shown = 8
	s := " [history lines "
	for i, l := range lines {
		if i == shown {
			s += fmt.Sprintf(", … %d more", len(lines)-shown)
			break
		}
		if i > 0 {
			s += ", "
		}
		s += strconv.Itoa(l)
	}
	return s + "]"
}

// unopenedWindows names the variant_on windows that never opened (the
// writers stopped first), "" when every one did: a negative scenario
// whose variant never ran is not the checker missing its bug.
func (o *Outcome) unopenedWindows() string {
	var names []string
	for _, f := range o.Config.Timed {
		if f.Kind == target.VariantOn && f.At >= o.writersElapsed {
			names = append(names, fmt.Sprintf("%s at %s", f.Variant, f.At))
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("; the variant_on window %s never opened: the writers stopped at %.1fs", strings.Join(names, ", "), o.writersElapsed.Seconds())
}
