package checker

import "github.com/chatseq/chatseq/history"

// NameAPIConformance is the invariant's name as HISTORY.md spells it.
const NameAPIConformance = "api_conformance"

// checkAPIConformance: every answer the client saw is one the service's
// API allows. A completion with error bad_response (history.ErrorBadResponse)
// records one that is not (a success without a readable sequence, a page
// without its list, a redirect, an answer past its bound): a finding about
// the service, whatever the operation's outcome, which is recorded as it
// stands (a send's unknown, a read's without effect). Without the finding
// a service answering every send so would pass: nothing it acknowledged
// is there to be lost.
func checkAPIConformance(x *index) Result {
	v := newVerdict(NameAPIConformance)
	completed := 0
	for i := range x.ops.Count() {
		o := x.ops.At(i)
		if o.status == stOpen {
			continue
		}
		completed++
		if e := o.err(); e == 0 || x.errNames[e] != history.ErrorBadResponse {
			continue
		}
		f := history.FPersist
		if o.fn == fnSync {
			f = history.FSync
		}
		v.fail(x.opLines(int32(i)), "a %s on chat %q (line %d) was answered in breach of the service's API (line %d, %s %q)",
			f, x.chatNames[o.chat], o.invLine, o.doneLine, x.status(int32(i)), history.ErrorBadResponse)
	}
	if completed == 0 {
		v.notApplicable("no operation completed")
	}
	v.pass("%s, each answered as the API allows", plural(completed, "completed operation"))
	return v.result()
}
