package checker

import "testing"

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
