package checker

import (
	"cmp"
	"slices"

	"github.com/chatseq/chatseq/checker/internal/store"
)

// NameStreamContinuity is ADR-001's at-least-once transport on a live
// connection: the gateway may repeat a message, or close a slow connection
// (the device reconnects and catches up), but not skip one silently.
const NameStreamContinuity = "stream_continuity"

// checkStreamContinuity: what a device's connection (connect to
// disconnect) was streamed of a chat (not "catch_up") is a contiguous run
// of the chat's events in the topic's order, copies included
// (store.Index.FirstStreamHole). The counterexample: the connect line, the
// pushes around the hole and the missing event's line. A chat two of
// whose events are at one partition and offset (topicOrder) is not
// judged: which came first is not known, and the verdict followed the
// lines' order in the file. A stream of one leaves the invariant unknown
// unless another chat's stream skipped.
func checkStreamContinuity(x *index) Result {
	v := newVerdict(NameStreamContinuity)
	if why := x.ReceiversAbsent(); why != "" {
		v.notApplicable("%s", why)
		return v.result()
	}
	if !x.HasEvents {
		v.notApplicable("no final events table: the topic's order of a chat's messages is unknown")
		return v.result()
	}
	d := x.Delivery
	t := x.topicOrder()
	h, s := x.FirstStreamHole(d, func(lc int32) bool { return t.unread[lc] })
	if s.Streamed == 0 {
		v.notApplicable("no message streamed on an open connection (%s, all caught up or none)", plural(d.PushLines, "push line"))
		return v.result()
	}
	if h != nil {
		before, miss, after := x.Fin.At(h.Before), x.Fin.At(h.Missing), x.Fin.At(h.After)
		v.fail([]int{int(h.Connect), int(h.BeforePush), int(h.AfterPush), int(miss.Line)},
			"device %q's connection opened at line %d was streamed chat %q seq %d (push line %d) and seq %d (push line %d) but not seq %d, between them in the topic (events lines %d, %d, %d): a live connection skipped a message",
			d.Devs[h.Dev].Name, h.Connect, d.Chats[h.Chat], before.Seq, h.BeforePush, after.Seq, h.AfterPush, miss.Seq, before.Line, miss.Line, after.Line)
		return v.result()
	}
	if s.Unread > 0 {
		i, _ := slices.BinarySearchFunc(t.collisions, s.UnreadChat, func(c offsetCollision, chat int32) int { return cmp.Compare(c.chat, chat) })
		v.unknown("%s of a chat whose topic order is not known left unjudged: %s, and which of the two a connection met first is not known",
			plural(s.Unread, "stream"), t.collisions[i].describe(x))
	}
	if s.Unjudged > 0 {
		v.unknown("%s left unjudged past a message the topic holds more than %d times (chat %q seq %d, %d copies): whether they skipped one after it is not known",
			plural(s.Unjudged, "stream"), store.MaxAlignments, d.Chats[s.Heavy.Chat], s.Heavy.Seq, s.Heavy.Copies)
	}
	if s.Streams == 0 && s.Unread > 0 {
		return v.result() // no stream judged: nothing passed
	}
	v.pass("%s (a connection's chat each) of %s were each a contiguous run of the topic (%d streamed events judged)",
		plural(s.Streams, "stream"), plural(len(d.Devs), "device"), s.Judged)
	return v.result()
}
