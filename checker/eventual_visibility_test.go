package checker

import "testing"

func init() {
	everyInvariant[NameEventualVisibility] = invariantCase{
		breaks: func() *hb { b, _ := missedByD2(); return b },
		keeps:  func() *hb { b, _ := deliveredChat(); return b },
	}
}

// missedByD2 is deliveredChat where d2 is never pushed seq 2.
func missedByD2() (*hb, deliveryLines) {
	var l deliveryLines
	b := newHB()
	b.join("A", "u1")
	l.joinU2 = b.join("A", "u2")
	b.connect("d1", "u1")
	l.connectD2 = b.connect("d2", "u2")
	b.send(1, "A", "k1", 1)
	b.push("d1", "A", 1)
	b.push("d2", "A", 1)
	b.send(2, "A", "k2", 2)
	b.push("d1", "A", 2)
	l.settledD1 = b.settled("d1")
	l.settledD2 = b.settled("d2")
	l.msg = b.dump(false)
	return b, l
}

func TestEventualVisibilityFailsOnAMessageAMemberNeverGot(t *testing.T) {
	b, l := missedByD2()
	res := mustFail(t, b.check(t), NameEventualVisibility, l.joinU2, l.connectD2, l.msg.msg["m-k2"], l.settledD2)
	mustContain(t, res.Detail, `device "d2" (user "u2", a member of chat "A" since line 3) never received seq 2 ("m-k2"`)
}

// Caught up counts as received; what arrives after the settled line
// does not.
func TestEventualVisibilityCountsCatchUpAndNotAfterSettle(t *testing.T) {
	b := newHB()
	join := b.join("A", "u1")
	conn := b.connect("d1", "u1")
	b.send(1, "A", "k1", 1)
	b.disconnect("d1")
	b.catchUp("d1", "A", 1)
	b.send(2, "A", "k2", 2)
	settled := b.settled("d1")
	b.connect("d1", "u1")
	b.push("d1", "A", 2)
	d := b.dump(false)
	res := mustFail(t, b.check(t), NameEventualVisibility, join, conn, d.msg["m-k2"], settled)
	mustContain(t, res.Detail, "never received seq 2")
}

// Without the final messages table the acknowledged messages are what
// must arrive.
func TestEventualVisibilityWithoutTheMessagesTable(t *testing.T) {
	b := newHB()
	join := b.join("A", "u1")
	conn := b.connect("d1", "u1")
	b.send(1, "A", "k1", 1)
	ack := b.send(2, "A", "k2", 2).ok
	b.push("d1", "A", 1)
	settled := b.settled("d1")
	res := mustFail(t, b.check(t), NameEventualVisibility, join, conn, ack, settled)
	mustContain(t, res.Detail, "acknowledged at line")

	b = newHB()
	b.join("A", "u1")
	b.connect("d1", "u1")
	b.send(1, "A", "k1", 1)
	b.push("d1", "A", 1)
	b.settled("d1")
	mustContain(t, must(t, b.check(t), NameEventualVisibility, Pass).Detail, "acknowledged message")
}

// Only devices whose user was a member from their first connect to their
// settle are judged, and only settled ones.
func TestEventualVisibilityJudgesMembersThroughoutOnly(t *testing.T) {
	b := newHB()
	b.connect("d1", "u1")
	b.join("A", "u1") // after the device connected
	b.send(1, "A", "k1", 1)
	b.settled("d1")
	b.dump(false)
	mustContain(t, mustNA(t, b.check(t), NameEventualVisibility).Reason, "no settled device's user was a member")

	b = newHB()
	b.join("A", "u1")
	b.connect("d1", "u1")
	b.send(1, "A", "k1", 1)
	b.leave("A", "u1") // before it settled
	b.settled("d1")
	b.dump(false)
	mustNA(t, b.check(t), NameEventualVisibility)

	b = newHB()
	b.join("A", "u1")
	b.connect("d1", "u1")
	b.send(1, "A", "k1", 1)
	b.dump(false)
	mustContain(t, mustNA(t, b.check(t), NameEventualVisibility).Reason, "no device settled")
}

// A history cut short has no final messages table to pass on: a miss of
// an acknowledged message still fails, a pass is unknown.
func TestEventualVisibilityCutShort(t *testing.T) {
	b, _ := deliveredChat()
	b.h.Header.EndLine = true // and no end line
	must(t, b.check(t), NameEventualVisibility, Unknown)

	b, l := missedByD2()
	b.h.Header.EndLine = true
	res := must(t, b.check(t), NameEventualVisibility, Fail)
	mustContain(t, res.Detail, "acknowledged at line")
	_ = l
}
