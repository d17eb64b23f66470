package checker

import "github.com/chatseq/chatseq/history"

// Two findings chatseq made about the designs it drives are invariants
// under a stated contract: catch_up_completeness (catchup.go), under
// catch_up: cursor, and event_order (eventorder.go), under event_order:
// per-chat. findingTasks decides, before the checkers run, whether each
// applies, and returns the tasks that judge those that do.

// findingStats are the two invariants' counts for Stats. They are counted
// whenever the history holds the evidence, promised or not, so that a
// threshold can read them under any contract.
type findingStats struct {
	missed     int // (reader, message) pairs catch_up_completeness found missing
	outOfOrder int // events event_order found after a higher sequence
}

// findingTasks lists the contract's findings invariants as tasks. One the
// contract does not promise is reported through notApplicable; one whose
// evidence the history lacks (no readers, no events lines) is put as not
// applicable by the history, as a verdict says it (so that a history cut
// short makes it unknown); a contract value the format does not define is
// unknown.
func findingTasks(x *index, con history.Contract, claims map[string]string, put func(Result), notApplicable func(name, reason string), fs *findingStats) []func() {
	var tasks []func()
	// A failure cites the design's own words for the promise it breaks.
	putCited := func(res Result) {
		if claim := claims[res.Name]; claim != "" && res.Status == Fail {
			res.Detail = claim + "; violated: " + res.Detail
		}
		put(res)
	}
	rs, marked := x.readers()
	absent := catchUpAbsent(x, rs, marked)
	switch con.CatchUp {
	case history.CatchUpCursor:
		if absent != "" {
			put(absentResult(NameCatchUpCompleteness, absent))
			break
		}
		tasks = append(tasks, func() {
			var res Result
			res, fs.missed = checkCatchUpCompleteness(x, rs)
			putCited(res)
		})
	case history.CatchUpNone:
		notApplicable(NameCatchUpCompleteness, "contract catch_up: none (the design promises catch-up clients nothing)")
	default:
		put(badContract(NameCatchUpCompleteness, "catch_up", con.CatchUp))
	}
	if con.CatchUp != history.CatchUpCursor && absent == "" {
		// Not promised, still counted: catch_up_missed is a fact of the run.
		tasks = append(tasks, func() { _, fs.missed = checkCatchUpCompleteness(x, rs) })
	}
	switch con.EventOrder {
	case history.EventOrderPerChat:
		if !x.hasEvents {
			put(absentResult(NameEventOrder, "no final events lines: the topic was not read back"))
			break
		}
		tasks = append(tasks, func() {
			var res Result
			res, fs.outOfOrder, _ = x.eventOrder()
			putCited(res)
		})
	case history.EventOrderNone:
		notApplicable(NameEventOrder, "contract event_order: none (the design does not promise consumers per-chat order)")
	default:
		put(badContract(NameEventOrder, "event_order", con.EventOrder))
	}
	if con.EventOrder != history.EventOrderPerChat && x.hasEvents {
		// Not promised, still counted: events_out_of_order is a fact of
		// the topic.
		tasks = append(tasks, func() { _, fs.outOfOrder, _ = x.eventOrder() })
	}
	return tasks
}

// absentResult is name, not applicable because the history holds none of
// the evidence it reads.
func absentResult(name, reason string) Result {
	v := newVerdict(name)
	v.notApplicable("%s", reason)
	return v.result()
}

// claimsOf reads the header's claims (history.ClaimsField); a malformed
// value is a warning and no claims.
func claimsOf(h history.Header, x *index) map[string]string {
	claims, err := history.DecodeClaims(h.Extra[history.ClaimsField])
	if err != nil {
		x.warn("%v: ignored", err)
	}
	return claims
}
