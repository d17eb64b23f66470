package checker

import (
	"github.com/chatseq/chatseq/checker/internal/store"
	"github.com/chatseq/chatseq/history"
)

// NameAPIConformance is the invariant's name as HISTORY.md spells it.
const NameAPIConformance = "api_conformance"

// checkAPIConformance: every answer the client saw is one the service's
// API allows. A completion with error bad_response (history.ErrorBadResponse)
// records one that is not (a success without a readable sequence, a page
// without its list, a redirect, an answer past its bound): a finding about
// the service, whatever the operation's outcome, which is recorded as it
// stands (a send's unknown, a read's without effect). Without the finding
// a service answering every send so would pass: nothing it acknowledged
// is there to be lost. A device's connection that ended on a push frame
// in breach of the push API (its disconnect line's error starts
// bad_frame) is one too: a push channel whose every frame was garbage
// passed, its devices catching up by sync.
func checkAPIConformance(x *index) Result {
	v := newVerdict(NameAPIConformance)
	completed := 0
	for i := range x.Ops.Count() {
		o := x.Ops.At(i)
		if o.Status == store.StOpen {
			continue
		}
		completed++
		if e := o.Err(); e == 0 || x.ErrNames[e] != history.ErrorBadResponse {
			continue
		}
		f := history.FPersist
		if o.Fn == store.FnSync {
			f = history.FSync
		}
		v.fail(x.OpLines(int32(i)), "a %s on chat %q (line %d) was answered in breach of the service's API (line %d, %s %q)",
			f, x.ChatNames[o.Chat], o.InvLine, o.DoneLine, x.Status(int32(i)), history.ErrorBadResponse)
	}
	frames := ""
	if d := x.Delivery; d != nil && d.BadFrames.N > 0 {
		v.fail(d.BadFrames.First, "%s ended on a push frame in breach of the push channel's API; the first at line %d: %s",
			plural(d.BadFrames.N, "device connection"), d.BadFrames.First[0], d.BadFrameError)
	} else if d.Devices() {
		frames = ", and every push frame read as the push API allows"
	}
	if completed == 0 && !x.Delivery.Devices() {
		v.notApplicable("no operation completed")
	}
	v.pass("%s, each answered as the API allows%s", plural(completed, "completed operation"), frames)
	return v.result()
}
