package checker

import (
	"testing"
	"time"
)

func init() {
	everyInvariant[NamePushAuthorization] = invariantCase{
		breaks: func() *hb { b, _, _ := pushedToAStranger(); return b },
		keeps:  func() *hb { b, _ := deliveredChat(); return b },
	}
}

// pushedToAStranger pushes chat A to a device of u3, a member of B only.
func pushedToAStranger() (b *hb, connect, push int) {
	b = newHB()
	b.join("A", "u1")
	b.join("B", "u3")
	b.connect("d1", "u1")
	connect = b.connect("d3", "u3")
	b.send(1, "A", "k1", 1)
	b.push("d1", "A", 1)
	push = b.push("d3", "A", 1)
	return b, connect, push
}

func TestPushToANonMemberFails(t *testing.T) {
	b, connect, push := pushedToAStranger()
	res := mustFail(t, b.check(t), NamePushAuthorization, connect, push)
	mustContain(t, res.Detail, "to a user who was not a member of the chat")
}

func TestPushOnARefusedConnectionFails(t *testing.T) {
	b := newHB()
	b.join("A", "u1")
	refused := b.connectRefused("d1", "u1")
	b.send(1, "A", "k1", 1)
	push := b.push("d1", "A", 1)
	res := mustFail(t, b.check(t), NamePushAuthorization, refused, push)
	mustContain(t, res.Detail, "on a connection whose identity was refused")

	// A catch-up fetched apart from the refused connection is no push on it.
	b = newHB()
	b.join("A", "u1")
	b.connectRefused("d1", "u1")
	b.send(1, "A", "k1", 1)
	b.catchUp("d1", "A", 1)
	must(t, b.check(t), NamePushAuthorization, Pass)
}

// A push after the user left is counted, not failed (it may have been in
// flight); a history without membership has nothing to judge it by.
func TestPushAfterLeaveAndWithoutMembership(t *testing.T) {
	b := newHB()
	b.join("A", "u1")
	b.connect("d1", "u1")
	b.send(1, "A", "k1", 1)
	b.leave("A", "u1")
	b.push("d1", "A", 1)
	r := b.check(t)
	mustContain(t, must(t, r, NamePushAuthorization, Pass).Detail, "1 message pushed to users after they left")
	if r.Stats.Delivery.AfterLeave != 1 {
		t.Errorf("pushed after leave: %d", r.Stats.Delivery.AfterLeave)
	}

	b = newHB()
	b.connect("d1", "u1")
	b.send(1, "A", "k1", 1)
	b.push("d1", "A", 1)
	mustContain(t, mustNA(t, b.check(t), NamePushAuthorization).Reason, "no join line and no refused connection")
}

// A message first sent a second or more after its user left the chat was
// not in flight when the user left: pushing it to the user fails,
// streamed on the connection the user had before the leave or caught up,
// and the counterexample is the leave, the message's first invoke and the
// push. Pushes of such messages were only counted: a push channel that
// kept a departed member subscribed, or served them catch-up pages,
// passed (found by an outside walk-through).
func TestPushOfAMessageSentAfterTheLeaveFails(t *testing.T) {
	for _, catchUp := range []bool{false, true} {
		b := newHB()
		b.join("A", "u1")
		b.connect("d1", "u1")
		leave := b.leave("A", "u1")
		b.now += int64(2 * time.Second)
		sent := b.send(1, "A", "k1", 1)
		var push int
		if catchUp {
			push = b.catchUp("d1", "A", 1)
		} else {
			push = b.push("d1", "A", 1)
		}
		res := mustFail(t, b.check(t), NamePushAuthorization, leave, sent.invoke, push)
		mustContain(t, res.Detail, "1 message pushed to users after they left the chat, first sent 1.0 s or more after the leave")
	}
}

// What may have been in flight is counted, not failed: a message first
// sent before the leave (its retry acknowledged after it), or within a
// second of it, the push channel's time to see the membership change;
// and a user who joined again may be pushed anything.
func TestPushAfterTheLeaveOfWhatMayHaveBeenInFlightPasses(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(b *hb)
	}{
		{"first sent before the leave, acknowledged after", func(b *hb) {
			b.invoke(1, "A", "k1")
			b.info(1, "A", "k1", "timeout")
			b.leave("A", "u1")
			b.now += int64(2 * time.Second)
			b.send(1, "A", "k1", 1)
		}},
		{"first sent within a second of the leave", func(b *hb) {
			b.leave("A", "u1")
			b.now += int64(500 * time.Millisecond)
			b.send(1, "A", "k1", 1)
		}},
		{"joined again", func(b *hb) {
			b.leave("A", "u1")
			b.now += int64(2 * time.Second)
			b.send(1, "A", "k1", 1)
			b.join("A", "u1")
		}},
	} {
		b := newHB()
		b.join("A", "u1")
		b.connect("d1", "u1")
		tc.make(b)
		b.push("d1", "A", 1)
		if r, _ := b.check(t).Result(NamePushAuthorization); r.Status != Pass {
			t.Errorf("%s: push_authorization %s (%s); want a pass", tc.name, r.Status, r.Detail)
		}
	}
}

// A line's time may be any int64: a leave near the top of the range plus
// the grace wrapped round, and a push right after it, of a message sent
// long before the leave, failed as "first sent -9223372036.9 s after" it
// (a red-team's false FAIL). The grace now stops at the range's end.
func TestPushRightAfterALeaveAtTheTopOfTimePasses(t *testing.T) {
	h := `{"format":"chatseq-history","version":1}
{"type":"join","time":1,"chat":"c1","user":"u1"}
{"type":"join","time":2,"chat":"c1","user":"u2"}
{"type":"connect","time":3,"device":"d2","user":"u2"}
{"type":"invoke","process":1,"f":"persist","time":10,"chat":"c1","key":"k1","sender":"u1"}
{"type":"ok","process":1,"f":"persist","time":20,"seq":1,"message_id":"m1","dedup":false}
{"type":"leave","time":9223372036854775797,"chat":"c1","user":"u2"}
{"type":"push","time":9223372036854775798,"device":"d2","chat":"c1","seqs":[1],"message_ids":["m1"]}
`
	res := must(t, mustExact(t, h), NamePushAuthorization, Pass)
	mustContain(t, res.Detail, "1 message pushed to users after they left")
}

// A pass says what it stands on: with only members' devices connected it
// says so (it judged nothing a non-member's device was given); with a
// device of a user of no chat, how many such and refused connects.
func TestPushAuthorizationSaysWhoseDevicesItJudged(t *testing.T) {
	b, _ := deliveredChat()
	res := must(t, b.check(t), NamePushAuthorization, Pass)
	mustContain(t, res.Detail, "only members' devices")

	b, _ = deliveredChat()
	b.connect("d-out", "outsider-0")
	res = must(t, b.check(t), NamePushAuthorization, Pass)
	mustContain(t, res.Detail, "1 of users a member of no chat")
}
