package checker

import (
	"slices"
	"testing"

	"github.com/chatseq/chatseq/history"
)

// A non-member's send answered ok is reported online at its answer, as
// the check after the run fails it; what the check after the run passes
// is never reported. A chat joined after the first operation is left to
// the check after the run (a join while a member's send is in flight
// excuses a key the online check did not mark).
func TestOnlineSendAuthorization(t *testing.T) {
	const notApplicable Status = "n/a" // listed apart, not a Result's status
	type want struct {
		online  bool
		offline Status
	}
	for _, tc := range []struct {
		name  string
		build func() (*hb, []int)
		want  want
	}{
		{"an outsider answered ok", func() (*hb, []int) {
			b, inv, ok := sentByAnOutsider()
			return b, []int{inv, ok}
		}, want{true, Fail}},
		{"an outsider refused", func() (*hb, []int) {
			b := newHB()
			b.join("A", "u1")
			b.send(1, "A", "k1", 1)
			b.invoke(2, "A", "k2")
			b.fail(2, "A", "k2", "not_a_member")
			return b, nil
		}, want{false, Pass}},
		{"a member who left", func() (*hb, []int) {
			b := newHB()
			b.join("A", "u1")
			b.join("A", "u2")
			b.send(2, "A", "k1", 1)
			leave := b.leave("A", "u2")
			l := b.send(2, "A", "k2", 2)
			return b, []int{leave, l.invoke, l.ok}
		}, want{true, Fail}},
		{"an outsider given a member's key back", func() (*hb, []int) {
			b := newHB()
			b.join("A", "u1")
			b.send(1, "A", "k1", 1)
			b.invoke(2, "A", "k1")
			b.dedup(2, "A", "k1", 1, "m-k1")
			return b, nil
		}, want{false, Pass}},
		{"joined while in flight", func() (*hb, []int) {
			b := newHB()
			b.join("A", "u1")
			b.invoke(2, "A", "k1")
			b.join("A", "u2")
			b.ok(2, "A", "k1", 1, "m1")
			return b, nil
		}, want{false, Pass}},
		{"a chat joined after the first operation", func() (*hb, []int) {
			b := newHB()
			b.join("A", "u1")
			b.send(1, "A", "k1", 1)
			b.join("B", "u1")
			b.send(2, "B", "k2", 1)
			return b, nil
		}, want{false, Fail}},
		{"a design that checks no membership", func() (*hb, []int) {
			b, _, _ := sentByAnOutsider()
			b.h.Header.Contract.SendMembership = history.SendMembershipUnchecked
			return b, nil
		}, want{false, notApplicable}},
	} {
		b, lines := tc.build()
		rep := b.check(t)
		off, ok := rep.Result(NameSendAuthorization)
		status := off.Status
		if !ok {
			status = notApplicable
		}
		vs := feedInLineOrder(NewOnline(nil), &b.h).Violations()
		i := slices.IndexFunc(vs, func(v Violation) bool { return v.Invariant == NameSendAuthorization })
		switch {
		case status != tc.want.offline:
			t.Errorf("%s: offline %s (%s), want %s", tc.name, status, off.Detail, tc.want.offline)
		case (i >= 0) != tc.want.online:
			t.Errorf("%s: online found %v, want %v (%+v)", tc.name, i >= 0, tc.want.online, vs)
		case i >= 0 && !slices.Equal(vs[i].Lines, lines):
			t.Errorf("%s: online lines %v, want %v (%s)", tc.name, vs[i].Lines, lines, vs[i].Detail)
		}
	}
}
