package delivery

import "fmt"

// The oracle's verdicts, spelled as chatseq check --format json spells
// statuses ("n/a" is how the checker lists not_applicable ones).
type status string

const (
	pass    status = "pass"
	fail    status = "fail"
	na      status = "n/a"
	unknown status = "unknown"
)

// verdict is one invariant's outcome with a reason a person can check
// against the history by hand, and the rule that gave it: the reason's
// format string, one for each rule of a judge (the cross-check tells
// disagreements apart by it).
type verdict struct {
	status status
	reason string
	rule   string
}

func passed(format string, a ...any) verdict { return verdict{pass, fmt.Sprintf(format, a...), format} }
func failed(format string, a ...any) verdict { return verdict{fail, fmt.Sprintf(format, a...), format} }
func undecided(format string, a ...any) verdict {
	return verdict{unknown, fmt.Sprintf(format, a...), format}
}
func notApplicable(format string, a ...any) verdict {
	return verdict{na, fmt.Sprintf(format, a...), format}
}

// The eight invariants the receiver lines decide, by the names FORMAT.md
// gives them.
const (
	invVisibility   = "eventual_visibility"
	invOrder        = "identical_order"
	invState        = "delivery_state_consistency"
	invAuth         = "push_authorization"
	invContinuity   = "stream_continuity"
	invCompleteness = "stream_completeness"
	invSend         = "send_authorization"
	invRead         = "read_authorization"
)

var invariants = []string{invVisibility, invOrder, invState, invAuth, invContinuity, invCompleteness, invSend, invRead}

// Applicability: FORMAT.md says an invariant is n/a when "the file,
// complete, holds none of the evidence it reads", and a history without
// receiver lines has the delivery invariants n/a; a table read and empty
// is evidence ("judged as it stands, empty included"). The text does not
// draw the line further, so each judge states what it takes as its
// evidence next to its rule: when none of it is there the rule is n/a,
// otherwise pass or fail (a rule that holds over evidence with nothing
// left to compare passes).

// judge gives the oracle's verdict on every delivery invariant.
func judge(d doc) map[string]verdict {
	f := newFacts(d)
	return map[string]verdict{
		invVisibility:   f.eventualVisibility(),
		invOrder:        f.identicalOrder(),
		invState:        f.deliveryStateConsistency(),
		invAuth:         f.pushAuthorization(),
		invContinuity:   f.streamContinuity(),
		invCompleteness: f.streamCompleteness(d.hdr),
		invSend:         f.sendAuthorization(d.hdr),
		invRead:         f.readAuthorization(d.hdr),
	}
}

func itoa(n int) string     { return fmt.Sprint(n) }
func quote(s string) string { return fmt.Sprintf("%q", s) }
