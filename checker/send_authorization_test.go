package checker

import (
	"testing"

	"github.com/chatseq/chatseq/history"
)

func init() {
	everyInvariant[NameSendAuthorization] = invariantCase{
		breaks: func() *hb { b, _, _ := sentByAnOutsider(); return b },
		keeps: func() *hb {
			b := newHB()
			b.join("A", "u1")
			b.send(1, "A", "k1", 1)
			return b
		},
	}
}

// sentByAnOutsider: u1 is A's member; u2, a member of no chat, sends to A
// and is acknowledged.
func sentByAnOutsider() (b *hb, invoke, ok int) {
	b = newHB()
	b.join("A", "u1")
	b.send(1, "A", "k1", 1)
	l := b.send(2, "A", "k2", 2)
	return b, l.invoke, l.ok
}

func TestASendFromANonMemberAnsweredOKFails(t *testing.T) {
	b, invoke, ok := sentByAnOutsider()
	res := mustFail(t, b.check(t), NameSendAuthorization, invoke, ok)
	mustContain(t, res.Detail, `"u2" sent to chat "A"`)
	mustContain(t, res.Detail, "never a member")

	// Refused as not_a_member, the same send keeps it.
	b = newHB()
	b.join("A", "u1")
	b.send(1, "A", "k1", 1)
	b.invoke(2, "A", "k2")
	b.fail(2, "A", "k2", "not_a_member")
	must(t, b.check(t), NameSendAuthorization, Pass)
}

// A user who left is refused from then on; one who joined while its
// send was in flight may have been checked after the join.
func TestASendAfterLeavingFailsAndOneWhileJoiningPasses(t *testing.T) {
	b := newHB()
	b.join("A", "u1")
	b.join("A", "u2")
	b.send(2, "A", "k1", 1)
	leave := b.leave("A", "u2")
	l := b.send(2, "A", "k2", 2)
	res := mustFail(t, b.check(t), NameSendAuthorization, leave, l.invoke, l.ok)
	mustContain(t, res.Detail, "left at line")

	b = newHB()
	b.join("A", "u1")
	b.invoke(2, "A", "k1")
	b.join("A", "u2")
	b.ok(2, "A", "k1", 1, "m1")
	must(t, b.check(t), NameSendAuthorization, Pass)

	// Left while the send was in flight: checked before the leave.
	b = newHB()
	b.join("A", "u2")
	b.invoke(2, "A", "k1")
	b.leave("A", "u2")
	b.ok(2, "A", "k1", 1, "m1")
	must(t, b.check(t), NameSendAuthorization, Pass)
}

// ADR-004 §6/§7 look the key up before the membership: a non-member's
// send of a key a member sent first may get the member's message back.
func TestANonMembersRetryOfAMembersKeyPasses(t *testing.T) {
	b := newHB()
	b.join("A", "u1")
	b.send(1, "A", "k1", 1)
	b.invoke(2, "A", "k1")
	b.dedup(2, "A", "k1", 1, "m-k1")
	must(t, b.check(t), NameSendAuthorization, Pass)

	// Under key_scope client the key is u2's own: no member sent it.
	b = newHBContract(history.Contract{KeyScope: history.KeyScopeClient})
	b.join("A", "u1")
	b.send(1, "A", "k1", 1)
	l := b.send(2, "A", "k1", 2)
	mustFail(t, b.check(t), NameSendAuthorization, l.invoke, l.ok)
}

func TestSendAuthorizationNeedsMembershipAndTheContract(t *testing.T) {
	// No join line: the history records no membership.
	b := newHB()
	b.send(2, "A", "k1", 1)
	mustContain(t, mustNA(t, b.check(t), NameSendAuthorization).Reason, "no join line")

	// A chat no join line names is not judged.
	b = newHB()
	b.join("B", "u1")
	b.send(2, "A", "k1", 1)
	mustContain(t, mustNA(t, b.check(t), NameSendAuthorization).Reason, "no persist with a sender")

	// A design whose send path reads no membership does not promise it.
	b, _, _ = sentByAnOutsider()
	b.h.Header.Contract.SendMembership = history.SendMembershipUnchecked
	mustContain(t, mustNA(t, b.check(t), NameSendAuthorization).Reason, "send_membership: unchecked")
}
