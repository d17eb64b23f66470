package checker

import (
	"fmt"
	"slices"
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

// sendCase is a history send_authorization judges, the verdict the check
// after the run gives it (and the words its detail holds), and whether
// the online check reports it, at which lines.
type sendCase struct {
	name    string
	build   func() (b *hb, lines []int)
	offline Status
	detail  string
	online  bool
}

// notApplicable is how a case says the invariant is listed n/a.
const notApplicable Status = "n/a"

var sendCases = []sendCase{
	{"an outsider answered ok", func() (*hb, []int) {
		b, inv, ok := sentByAnOutsider()
		return b, []int{inv, ok}
	}, Fail, `"u2" sent to chat "A" at line 6 (never a member of it)`, true},
	{"an outsider refused as not_a_member", func() (*hb, []int) {
		b := newHB()
		b.join("A", "u1")
		b.send(1, "A", "k1", 1)
		b.invoke(2, "A", "k2")
		b.fail(2, "A", "k2", "not_a_member")
		return b, nil
	}, Pass, "1 of them by non-members", false},
	// A user who left is refused from then on.
	{"a member who left", func() (*hb, []int) {
		b := newHB()
		b.join("A", "u1")
		b.join("A", "u2")
		b.send(2, "A", "k1", 1)
		leave := b.leave("A", "u2")
		l := b.send(2, "A", "k2", 2)
		return b, []int{leave, l.invoke, l.ok}
	}, Fail, "it left at line", true},
	// One who joined while its send was in flight may have been checked
	// after the join; one who left then, before it.
	{"joined while in flight", func() (*hb, []int) {
		b := newHB()
		b.join("A", "u1")
		b.invoke(2, "A", "k1")
		b.join("A", "u2")
		b.ok(2, "A", "k1", 1, "m1")
		return b, nil
	}, Pass, "", false},
	{"left while in flight", func() (*hb, []int) {
		b := newHB()
		b.join("A", "u2")
		b.invoke(2, "A", "k1")
		b.leave("A", "u2")
		b.ok(2, "A", "k1", 1, "m1")
		return b, nil
	}, Pass, "", false},
	// ADR-004 §6/§7 look the key up before the membership: a non-member's
	// send of a key a member sent first may get the member's message back.
	{"an outsider given a member's key back", func() (*hb, []int) {
		b := newHB()
		b.join("A", "u1")
		b.send(1, "A", "k1", 1)
		b.invoke(2, "A", "k1")
		b.dedup(2, "A", "k1", 1, "m-k1")
		return b, nil
	}, Pass, "", false},
	// Only a replay is answered from a record, and a failed send left
	// none: a member's failed or in-flight send of the key excused an
	// outsider's new message (an outside tester's). The online check
	// judges answers as new alone: it leaves replays to the check after
	// the run.
	{"an outsider's new message of a key a member's failed send used", func() (*hb, []int) {
		b := newHB()
		b.join("A", "u1")
		b.invoke(1, "A", "k1")
		b.fail(1, "A", "k1", "counter_missing")
		inv := b.invoke(2, "A", "k1")
		return b, []int{inv, b.ok(2, "A", "k1", 1, "m1")}
	}, Fail, `"u2" sent to chat "A"`, true},
	{"an outsider's replay of a key only a member's failed send used", func() (*hb, []int) {
		b := newHB()
		b.join("A", "u1")
		b.invoke(1, "A", "k1")
		b.fail(1, "A", "k1", "counter_missing")
		inv := b.invoke(2, "A", "k1")
		return b, []int{inv, b.dedup(2, "A", "k1", 1, "m1")}
	}, Fail, `"u2" sent to chat "A"`, false},
	{"an outsider's new message of a key a member's unanswered send used", func() (*hb, []int) {
		b := newHB()
		b.join("A", "u1")
		b.invoke(1, "A", "k1")
		b.info(1, "A", "k1", "timeout")
		inv := b.invoke(2, "A", "k1")
		return b, []int{inv, b.ok(2, "A", "k1", 1, "m1")}
	}, Fail, `"u2" sent to chat "A"`, true},
	{"an outsider's replay of a key a member's unanswered send used", func() (*hb, []int) {
		b := newHB()
		b.join("A", "u1")
		b.invoke(1, "A", "k1")
		b.info(1, "A", "k1", "timeout")
		b.invoke(2, "A", "k1")
		b.dedup(2, "A", "k1", 1, "m1")
		return b, nil
	}, Pass, "", false},
	// Under key_scope client the key is u2's own: no member sent it.
	{"a member's key text under key_scope client", func() (*hb, []int) {
		b := newHBContract(history.Contract{KeyScope: history.KeyScopeClient})
		b.join("A", "u1")
		b.send(1, "A", "k1", 1)
		l := b.send(2, "A", "k1", 2)
		return b, []int{l.invoke, l.ok}
	}, Fail, `"u2" sent to chat "A"`, true},
	// A chat joined after the first operation is judged from its join on.
	{"a chat joined after the first operation", func() (*hb, []int) {
		b := newHB()
		b.join("A", "u1")
		b.send(1, "A", "k1", 1)
		b.join("B", "u1")
		l := b.send(2, "B", "k2", 1)
		return b, []int{l.invoke, l.ok}
	}, Fail, `"u2" sent to chat "B"`, true},
	// An outsider's persist invoked before its chat's first join is not
	// judged online (the chat's membership was not known at its invoke).
	{"a send invoked before its chat's first join", func() (*hb, []int) {
		b := newHB()
		b.join("A", "u1")
		inv := b.invoke(2, "B", "k2")
		b.join("B", "u1")
		return b, []int{inv, b.ok(2, "B", "k2", 1, "m1")}
	}, Fail, `"u2" sent to chat "B"`, false},
	{"no join line", func() (*hb, []int) {
		b := newHB()
		b.send(2, "A", "k1", 1)
		return b, nil
	}, notApplicable, "no join line", false},
	{"a chat no join line names", func() (*hb, []int) {
		b := newHB()
		b.join("B", "u1")
		b.send(2, "A", "k1", 1)
		return b, nil
	}, notApplicable, "no persist with a sender", false},
	{"a design that checks no membership", func() (*hb, []int) {
		b, _, _ := sentByAnOutsider()
		b.h.Header.Contract.SendMembership = history.SendMembershipUnchecked
		return b, nil
	}, notApplicable, "send_membership: unchecked", false},
}

// Each case's verdict after the run, and its counterexample's lines.
func TestSendAuthorization(t *testing.T) { judgeMembershipCases(t, NameSendAuthorization, sendCases) }

// judgeMembershipCases checks each case's verdict of invariant name after
// the run, and its counterexample's lines.
func judgeMembershipCases(t *testing.T, name string, cases []sendCase) {
	t.Helper()
	for _, tc := range cases {
		b, lines := tc.build()
		r := b.check(t)
		if tc.offline == notApplicable {
			mustContain(t, mustNA(t, r, name).Reason, tc.detail)
			continue
		}
		var res Result
		if tc.offline == Fail && lines != nil {
			res = mustFail(t, r, name, lines...)
		} else {
			res = must(t, r, name, tc.offline)
		}
		mustContain(t, res.Detail, tc.detail)
	}
}

// A non-member's send answered ok is reported online at its answer, as
// the check after the run fails it; what the check after the run passes
// is never reported.
func TestOnlineSendAuthorization(t *testing.T) {
	judgeMembershipCasesOnline(t, NameSendAuthorization, sendCases)
}

// judgeMembershipCasesOnline checks that the online check reports
// invariant name on exactly the cases that say so, at their lines.
func judgeMembershipCasesOnline(t *testing.T, name string, cases []sendCase) {
	t.Helper()
	for _, tc := range cases {
		b, lines := tc.build()
		vs := feedInLineOrder(NewOnline(nil), &b.h).Violations()
		i := slices.IndexFunc(vs, func(v Violation) bool { return v.Invariant == name })
		switch {
		case (i >= 0) != tc.online:
			t.Errorf("%s: online found %v, want %v (%+v)", tc.name, i >= 0, tc.online, vs)
		case i >= 0 && tc.offline != Fail:
			t.Errorf("%s: online found what the check after the run does not", tc.name)
		case i >= 0 && !slices.Equal(vs[i].Lines, lines):
			t.Errorf("%s: online lines %v, want %v (%s)", tc.name, vs[i].Lines, lines, vs[i].Detail)
		}
	}
}

// The counterexample is the earliest violation in the file, whichever
// chat holds it: the operations are read chat by chat (a chat's first
// 4,096 in blocks shared in line order, then blocks of its own), so a
// chat's own block can be read before a shared block filled earlier.
func TestSendAuthorizationNamesTheEarliest(t *testing.T) {
	b := newHB()
	b.join("A", "u1")
	b.join("B", "u1")
	for i := range 4097 { // A's last one opens A's own block
		b.send(1, "A", fmt.Sprintf("a%d", i), uint64(i+1))
	}
	early := b.send(2, "B", "b1", 1) // a shared block after A's own
	b.send(3, "A", "a-late", 4098)   // A's own block
	mustFail(t, b.check(t), NameSendAuthorization, early.invoke, early.ok)
}
