package checker

import (
	"cmp"
	"slices"
	"strings"

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
//
// Over chatseq's HTTP API (overHTTP: the header's target is http) a
// replay of a key already persisted is answered with the original 201 body
// and the header Idempotency-Replayed: true (docs/http-api.md, "Sending";
// a mapping's send.replayed_header), which the http target records as
// dedup. Two answers of one key (as key_scope scopes it) as a new message
// with the same sequence and message id are one creation and a replay left
// unmarked (unmarkedReplays): a finding about the API, where a service
// correct but for the header failed sequence_monotonic,
// ack_implies_persistence and linearizability on the answers as recorded
// while this passed (an outside tester's). The embedded targets' dedup is
// the sequencer's own, never an answer's header: not judged so there.
func checkAPIConformance(x *index, overHTTP bool) Result {
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
	if overHTTP {
		unmarkedReplays(x, v)
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
	replays := ""
	if overHTTP {
		replays = ", no key answered twice as new with one message"
	}
	v.pass("%s, each answered as the API allows%s%s", plural(completed, "completed operation"), replays, frames)
	return v.result()
}

func judgeAPIConformance(j *judging) Result { return checkAPIConformance(j.x, j.overHTTP) }

// targetHTTP is the header's target of a history chatseq recorded over
// HTTP (bench --target http: targets/httptarget's Name; the checker does
// not import the targets).
const targetHTTP = "http"

// recordedOverHTTP says whether a header's target names the http target
// (alone, or among a merged run's targets, history.Merge joins them with
// commas).
func recordedOverHTTP(target string) bool {
	return slices.Contains(strings.Split(target, ","), targetHTTP)
}

// unmarkedReplays fails each ok answer of a persist as a new message
// (dedup false) that repeats the (seq, message_id) an earlier-completed
// answer of its key gave as new: the key's message was created once, so
// one of the two was a replay answered without its marking. A key's
// answers of other messages are idempotency_guarantee's; one answer as
// new beside replays (a retry whose first answer was lost, then answered
// as new) is what the API allows. It counts the unmarked answers and, when
// no answer of the history was marked a replay at all, warns: the
// idempotency hit rate of 0% is the missing marking's.
func unmarkedReplays(x *index, v *verdict) {
	var asNew []int32
	n := 0
	for k := int32(0); k < int32(len(x.KeyNames)); k++ {
		asNew = asNew[:0]
		for _, o := range x.KeyOps(k) {
			if x.Ops.At(o).Status == store.StOK && !x.IsDedup(o) {
				asNew = append(asNew, o)
			}
		}
		if len(asNew) < 2 {
			continue
		}
		slices.SortFunc(asNew, func(a, b int32) int {
			return cmp.Or(cmp.Compare(x.AckSeq(a), x.AckSeq(b)), cmp.Compare(x.AckID(a), x.AckID(b)), cmp.Compare(x.DoneLine(a), x.DoneLine(b)))
		})
		first := asNew[0]
		for _, o := range asNew[1:] {
			if x.AckSeq(o) != x.AckSeq(first) || x.AckID(o) != x.AckID(first) {
				first = o
				continue
			}
			n++
			v.fail([]int{x.DoneLine(first), x.DoneLine(o)}, "chat %q key %q was answered seq %d %q as a new message twice (lines %d and %d): the later answer repeats the earlier one without marking it a replay (dedup false). The API answers a replay of a key already persisted with the original 201 body and the header Idempotency-Replayed: true (docs/http-api.md, \"Sending\"; a mapping's send.replayed_header); an unmarked replay reads as a second creation of the key",
				x.ChatNames[x.KeyChat[k]], x.KeyText(k), x.AckSeq(o), x.MidName(x.AckID(o)), x.DoneLine(first), x.DoneLine(o))
		}
	}
	if n > 0 && !slices.ContainsFunc(x.Acks, x.IsDedup) {
		x.Warn("the service never marked a replay (Idempotency-Replayed: true, or a mapping's send.replayed_header): %s repeated an earlier answer of their key as new, so the idempotency hit rate reads 0%% and the invariants that judge creations (sequence_monotonic, ack_implies_persistence, linearizability) take those replays for new messages; api_conformance fails on each",
			plural(n, "answer"))
	}
}
