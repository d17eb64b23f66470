package checker

import (
	"fmt"
	"math"
	"time"

	"github.com/chatseq/chatseq/checker/internal/store"
	"github.com/chatseq/chatseq/history"
)

// NameStreamCompleteness is ADR-001 §4's "continue streaming new
// messages" on a live connection: once a connection streams a chat, what
// is sent to the chat afterwards comes on it, not only by a later sync.
const NameStreamCompleteness = "stream_completeness"

// subscribeGrace is how long a push channel has, from a connection's
// connect, to begin streaming a member's chat on it (under stream_start
// within-1s; at-connect allows none), and from a message's ack to stream
// it before the device's settle, when the connection never streamed the
// chat (so no push of it proves the gateway subscribed).
const subscribeGrace = int64(time.Second)

// streamStartPromise: both values promise a stream; a value HISTORY.md's
// project format does not define leaves its start unknown.
func streamStartPromise(j *judging) promise {
	switch j.con.StreamStart {
	case history.StreamStartWithinASecond, history.StreamStartAtConnect:
		return promise{}
	}
	return undefinedValue(history.FieldStreamStart, j.con.StreamStart)
}

// startAllowance is how long after its connect a connection may begin
// streaming under the contract's stream_start.
func startAllowance(con history.Contract) int64 {
	if con.StreamStart == history.StreamStartAtConnect {
		return 0
	}
	return subscribeGrace
}

func judgeStreamCompleteness(j *judging) Result {
	return checkStreamCompleteness(j.x, startAllowance(j.con))
}

// afterGrace and beforeGrace are t moved subscribeGrace later or earlier,
// held to int64's range: a line's time may be any int64, and wrapped
// round, a leave near the top of the range read a push right after it as
// first sent a century before it (a false FAIL).
func afterGrace(t int64) int64 { return after(t, subscribeGrace) }

// after is t moved d ≥ 0 later, held to int64's range.
func after(t, d int64) int64 {
	if t > math.MaxInt64-d {
		return math.MaxInt64
	}
	return t + d
}

func beforeGrace(t int64) int64 {
	if t < math.MinInt64+subscribeGrace {
		return math.MinInt64
	}
	return t - subscribeGrace
}

// checkStreamCompleteness: on a device's connection that stayed open to
// its settled line (store.LiveStreams), each chat its user was a member
// of from before the connect to past the settle: every acknowledged
// message of the chat whose key's first send began after the
// connection's first streamed push of the chat (the gateway was
// subscribed by then, so the message was published after it), and whose
// ack came before the settled line, was streamed on the connection
// before that line. On a connection that streamed nothing of the chat,
// the messages judged are those first sent allowance after the connect
// (a second, or none under stream_start at-connect) and acknowledged
// subscribeGrace before the settle: a fan-out that streams some members of a chat and skips the others (their syncs
// bringing them everything) passed every other invariant. A catch-up
// page does not stand in for the stream: a push channel holding back
// each chat's newest message, or dropping some, passed every other
// invariant without the topic, its devices' syncs filling the holes.
// The counterexample is the connect line, the first streamed push (if
// any), the message's invoke and ack, and the settled line.
func checkStreamCompleteness(x *index, allowance int64) Result {
	v := newVerdict(NameStreamCompleteness)
	if why := x.ReceiversAbsent(); why != "" {
		v.notApplicable("%s", why)
		return v.result()
	}
	d := x.Delivery
	streams := d.LiveStreams()
	if len(streams) == 0 {
		v.notApplicable("no settled device had a connection open to its settled line, not refused, in a chat its user was a member of throughout (%s)", plural(len(d.Devs), "device"))
		return v.result()
	}
	judged, caughtUpOnly, unstreamed := 0, 0, 0
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
		failed := false
		for _, o := range x.Acks[lo:hi] {
			s, id, first := x.AckSeq(o), x.AckID(o), x.FirstSent(o)
			sent := int32(x.InvLine(first))
			if s <= x.InitialCounter || int32(x.DoneLine(o)) > dev.Settled || sent < ls.Connect {
				continue
			}
			// Owed: what was first sent after the stream began, and, whether
			// or when it began, what was first sent a second after the
			// connect and acknowledged a second before the settle (a stream
			// that began a minute late owed what came in between).
			afterStream := ls.First != 0 && sent >= ls.First
			inGrace := x.Call(first) >= after(ls.ConnectTime, allowance) && x.Ret(o) <= beforeGrace(ls.SettledTime)
			if !afterStream && !inGrace {
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
			if ls.First == 0 {
				if !failed {
					unstreamed++
				}
				failed = true
				v.fail([]int{int(ls.Connect), int(sent), x.DoneLine(o), int(dev.Settled)},
					"device %q's connection opened at line %d stayed open to its settled line %d (%s) and streamed nothing of chat %q, its user's throughout, though seq %d (%q) was first sent at line %d, %s after the connect, and acknowledged at line %d, %s before the settle, %s: a connected member was never streamed its chat (%s)",
					dev.Name, ls.Connect, dev.Settled, seconds(ls.SettledTime-ls.ConnectTime), d.Chats[ls.Chat], s, x.MidName(id), sent, seconds(x.Call(first)-ls.ConnectTime), x.DoneLine(o), seconds(ls.SettledTime-x.Ret(o)), how, beginText(allowance))
				continue
			}
			if !afterStream {
				v.fail([]int{int(ls.Connect), int(sent), x.DoneLine(o), int(ls.First), int(dev.Settled)},
					"device %q's connection opened at line %d began streaming chat %q only at line %d, and never streamed seq %d (%q, first sent at line %d, %s after the connect, acknowledged at line %d, %s before the settle at line %d), %s: %s",
					dev.Name, ls.Connect, d.Chats[ls.Chat], ls.First, s, x.MidName(id), sent, seconds(x.Call(first)-ls.ConnectTime), x.DoneLine(o), seconds(ls.SettledTime-x.Ret(o)), dev.Settled, how, beginText(allowance))
				continue
			}
			v.fail([]int{int(ls.Connect), int(ls.First), int(sent), x.DoneLine(o), int(dev.Settled)},
				"device %q's connection opened at line %d streamed chat %q from line %d (seq %d) and stayed open to its settled line %d, but never streamed seq %d (%q, first sent at line %d, after that, acknowledged at line %d), %s: a live connection held back a message sent while it streamed the chat",
				dev.Name, ls.Connect, d.Chats[ls.Chat], ls.First, ls.FirstSeq, dev.Settled, s, x.MidName(id), sent, x.DoneLine(o), how)
		}
	}
	if judged == 0 {
		v.notApplicable("no message was acknowledged that was first sent after a live connection began streaming its chat, or %s its connect and acknowledged %s before its settle (%s judged)", sinceText(allowance), seconds(subscribeGrace), plural(len(streams), "live stream"))
		return v.result()
	}
	if unstreamed > 0 {
		v.note("%s streamed nothing of a chat their user was a member of", plural(unstreamed, "live connection"))
	}
	if caughtUpOnly > 0 {
		v.note("%s reached their device only by a catch-up sync", plural(caughtUpOnly, "unstreamed message"))
	}
	v.pass("%s (a connection open to its device's settle, and a chat) were each streamed every message sent to the chat after they began (%s judged)",
		plural(len(streams), "live stream"), plural(judged, "device-message pair"))
	return v.result()
}

// beginText says how long a connection has to begin streaming.
func beginText(allowance int64) string {
	if allowance == 0 {
		return "under stream_start at-connect a connection streams its user's chats from its open"
	}
	return "a push channel has " + seconds(allowance) + " to begin streaming a connected member's chat"
}

// sinceText places a first send after a connect: "after", or "1.0 s after".
func sinceText(allowance int64) string {
	if allowance == 0 {
		return "after"
	}
	return seconds(allowance) + " after"
}

// seconds renders a duration in nanoseconds as seconds.
func seconds(ns int64) string { return fmt.Sprintf("%.1f s", float64(ns)/1e9) }
