package checker

import (
	"fmt"

	"github.com/chatseq/chatseq/checker/internal/store"
)

// NamePushAuthorization is the push channel's security promise: a device
// is pushed only chats its user is a member of, and nothing on a
// connection whose identity the server refused.
const NamePushAuthorization = "push_authorization"

// checkPushAuthorization: no push (streamed or caught up) of a chat to a
// device whose user had no join line for the chat before it, and no
// streamed push on a connection whose connect line says "refused": true.
// Both are decided while the lines are read (store.Delivery.Take). A push to
// a user after it left the chat is counted, not failed: it may have been
// in flight when the membership changed; one streamed on a connection
// opened after the leave fails, as nothing can be in flight on it, and so
// does one of a message first sent (its key's first persist invoked)
// subscribeGrace or more after the leave, streamed or caught up: a push
// channel that kept a departed member subscribed, or a sync that served
// one, passed. The counterexample is the push and its device's connect
// line; for a message sent after the leave, the leave, the message's
// first invoke and the push.
func checkPushAuthorization(x *index) Result {
	v := newVerdict(NamePushAuthorization)
	if why := x.ReceiversAbsent(); why != "" {
		v.notApplicable("%s", why)
		return v.result()
	}
	d := x.Delivery
	if d.PushLines == 0 {
		v.notApplicable("no push line")
		return v.result()
	}
	if d.Joins == 0 && !d.AnyRefused {
		v.notApplicable("no join line and no refused connection: nothing to judge a push against (the history records no membership)")
		return v.result()
	}
	if d.Refused.N > 0 {
		v.fail(d.Refused.First, "%s on a connection whose identity was refused; the first at line %d (the connect at line %d refused it)",
			plural(d.Refused.N, "push line"), d.Refused.First[0], d.Refused.First[1])
	}
	if d.Joins > 0 && d.NonMember.N > 0 {
		v.fail(d.NonMember.First, "%s to a user who was not a member of the chat; the first at line %d (its device connected at line %d)",
			plural(d.NonMember.N, "push line"), d.NonMember.First[0], d.NonMember.First[1])
	}
	if d.Joins == 0 {
		v.note("no join line: membership is not judged, only refused connections")
	}
	if late := sentAfterLeave(x); late.n > 0 {
		p := late.first
		dev := &d.Devs[p.Dev]
		v.fail([]int{int(p.Leave), x.InvLine(late.sent), int(p.Line)},
			"%s pushed to users after they left the chat, first sent %s or more after the leave, so not in flight when they left; the first: user %q left chat %q at line %d, seq %d (%q) was first sent at line %d, %s after, and pushed to device %q at line %d",
			plural(late.n, "message"), seconds(subscribeGrace), d.Users[dev.User], d.Chats[p.Chat], p.Leave, p.Seq, x.MidName(x.AckID(late.ack)), x.InvLine(late.sent), seconds(x.Call(late.sent)-p.LeaveTime), dev.Name, p.Line)
	}
	if d.AfterLeave > 0 {
		v.note("%s pushed to users after they left the chat (not failed when first sent before the leave or within %s of it: they may have been in flight)", plural(d.AfterLeave, "message"), seconds(subscribeGrace))
	}
	v.pass("%s to %s%s: every one to a member, none on a refused connection", plural(d.PushLines, "push line"), plural(len(d.Devs), "device"), outsidersJudged(d))
	return v.result()
}

// outsidersJudged says how many of d's devices are of users with no join
// line (bench's outsider and anonymous devices) and how many connects
// were refused, the promise's other half a pass stands on; when none,
// that only members' devices were judged (a pass then says nothing of
// what a non-member's device is given: bench --outsider-devices 0
// --anonymous-devices 0).
func outsidersJudged(d *store.Delivery) string {
	joined := map[int32]bool{}
	for _, m := range d.Members {
		joined[m.User] = true
	}
	outsiders, refused := 0, 0
	for i := range d.Devs {
		if !joined[d.Devs[i].User] {
			outsiders++
		}
		for _, c := range d.Devs[i].Conns {
			if c.Refused {
				refused++
			}
		}
	}
	if outsiders == 0 && refused == 0 {
		return " (only members' devices: none of a user a member of no chat, no connect refused)"
	}
	return fmt.Sprintf(" (%d of users a member of no chat, %s refused)", outsiders, plural(refused, "connect"))
}

// lateAfterLeave counts the messages pushed to a user after it left the
// chat whose first send came subscribeGrace or more after the leave, and
// keeps the first: the push, the first persist of its key and an ack of it.
type lateAfterLeave struct {
	n         int
	first     store.AfterLeavePush
	sent, ack int32
}

// sentAfterLeave finds, for each message pushed after its user left the
// chat, the first persist of the key of a persist acknowledged with it
// (its sequence and id), and counts those invoked subscribeGrace or more
// after the leave. A message no persist was acknowledged with is not
// judged: when it was first sent is not known.
func sentAfterLeave(x *index) lateAfterLeave {
	d := x.Delivery
	var late lateAfterLeave
	if len(d.AfterLeavePushes) == 0 {
		return late
	}
	type msg struct {
		chat int32
		seq  uint64
		id   uint64
	}
	type origin struct{ sent, ack int32 }
	firstSent := map[msg]origin{}
	chats := map[int32]bool{}
	for _, p := range d.AfterLeavePushes {
		chats[p.Chat] = true
	}
	for c := range chats {
		lc := x.LogChat(d, c)
		if lc < 0 {
			continue
		}
		lo, hi := store.Span(x.AckSpan, lc)
		for _, o := range x.Acks[lo:hi] {
			m := msg{c, x.AckSeq(o), x.MidHash[x.AckID(o)]}
			first := x.FirstSent(o)
			if f, seen := firstSent[m]; !seen || x.Call(first) < x.Call(f.sent) {
				firstSent[m] = origin{first, o}
			}
		}
	}
	for _, p := range d.AfterLeavePushes {
		f, known := firstSent[msg{p.Chat, p.Seq, p.ID}]
		if !known || x.Call(f.sent) < afterGrace(p.LeaveTime) {
			continue
		}
		if late.n == 0 {
			late.first, late.sent, late.ack = p, f.sent, f.ack
		}
		late.n++
	}
	return late
}
