package checker

import "github.com/chatseq/chatseq/checker/internal/store"

// NameStreamCompleteness is ADR-001 §4's "continue streaming new
// messages" on a live connection: once a connection streams a chat, what
// is sent to the chat afterwards comes on it, not only by a later sync.
const NameStreamCompleteness = "stream_completeness"

// checkStreamCompleteness: on a device's connection that stayed open to
// its settled line (store.LiveStreams), each chat it was streamed, with
// the user a member from before the connect to past the settle: every
// acknowledged message of the chat whose key's first send began after
// the connection's first streamed push of the chat (the gateway was
// subscribed by then, so the message was published after it), and whose
// ack came before the settled line, was streamed on the connection
// before that line. A catch-up page does not stand in for it: a push
// channel holding back each chat's newest message, or dropping some,
// passed every other invariant without the topic, its devices' syncs
// filling the holes. The counterexample is the connect line, the first
// streamed push, the message's invoke and ack, and the settled line.
func checkStreamCompleteness(x *index) Result {
	v := newVerdict(NameStreamCompleteness)
	if why := x.ReceiversAbsent(); why != "" {
		v.notApplicable("%s", why)
		return v.result()
	}
	d := x.Delivery
	streams := d.LiveStreams()
	if len(streams) == 0 {
		v.notApplicable("no settled device had a connection open to its settled line that streamed a chat its user was a member of throughout (%s)", plural(len(d.Devs), "device"))
		return v.result()
	}
	judged, caughtUpOnly := 0, 0
	for i := range streams {
		ls := &streams[i]
		dev := &d.Devs[ls.Dev]
		lc := x.LogChat(d, ls.Chat)
		if lc < 0 {
			continue // no operation names the chat: nothing was sent to it
		}
		lo, hi := store.Span(x.AckSpan, lc)
		var lastSeq uint64
		var lastID uint32
		for _, o := range x.Acks[lo:hi] {
			s, id, sent := x.AckSeq(o), x.AckID(o), x.FirstSent(o)
			if s <= x.InitialCounter || int32(x.DoneLine(o)) > dev.Settled || int32(sent) < ls.First {
				continue
			}
			if s == lastSeq && id == lastID {
				continue // another ack of one message: judged once
			}
			lastSeq, lastID = s, id
			judged++
			streamed, received := d.StreamedOn(ls, dev.Settled, s, x.MidHash[id])
			if streamed {
				continue
			}
			how := "and never received it"
			if received {
				caughtUpOnly++
				how = "which had it only by a catch-up sync"
			}
			v.fail([]int{int(ls.Connect), int(ls.First), sent, x.DoneLine(o), int(dev.Settled)},
				"device %q's connection opened at line %d streamed chat %q from line %d (seq %d) and stayed open to its settled line %d, but never streamed seq %d (%q, first sent at line %d, after that, acknowledged at line %d), %s: a live connection held back a message sent while it streamed the chat",
				dev.Name, ls.Connect, d.Chats[ls.Chat], ls.First, ls.FirstSeq, dev.Settled, s, x.MidName(id), sent, x.DoneLine(o), how)
		}
	}
	if judged == 0 {
		v.notApplicable("no message was acknowledged that was first sent after a live connection began streaming its chat (%s judged)", plural(len(streams), "live stream"))
		return v.result()
	}
	if caughtUpOnly > 0 {
		v.note("%s reached their device only by a catch-up sync", plural(caughtUpOnly, "held-back message"))
	}
	v.pass("%s (a connection open to its device's settle, and a chat) were each streamed every message sent to the chat after they began (%s judged)",
		plural(len(streams), "live stream"), plural(judged, "device-message pair"))
	return v.result()
}
