package checker

import (
	"slices"
	"testing"

	"github.com/chatseq/chatseq/history"
)

// pushHistory: two devices connect and are pushed chat c's messages; the
// second device's push is last (its line is the proving one).
func pushHistory(second history.Receiver) *history.History {
	h := &history.History{Header: history.Header{Version: history.Version}}
	rs := []history.Receiver{
		{Kind: history.KindJoin, User: "u1", Chat: "c"},
		{Kind: history.KindJoin, User: "u2", Chat: "c"},
		{Kind: history.KindConnect, Device: "u1/d1", User: "u1"},
		{Kind: history.KindConnect, Device: "u2/d1", User: "u2"},
		{Kind: history.KindPush, Device: "u1/d1", Chat: "c", Seqs: []uint64{1, 2}, MessageIDs: []string{"m1", "m2"}},
		second,
	}
	for i := range rs {
		rs[i].Line, rs[i].Time = i+2, int64(10*(i+1))
	}
	h.Receivers = rs
	return h
}

// A push that shows a chat's sequence with another message id than a push
// to another device did, or one message id at another sequence, is
// reported at its line, as the check after the run fails it; a push that
// agrees is not.
func TestOnlineIdenticalOrder(t *testing.T) {
	push := func(seqs []uint64, ids ...string) history.Receiver {
		return history.Receiver{Kind: history.KindPush, Device: "u2/d1", Chat: "c", Seqs: seqs, MessageIDs: ids}
	}
	for _, tc := range []struct {
		name     string
		second   history.Receiver
		violated bool
	}{
		{"another id at seq 2", push([]uint64{2}, "m3"), true},
		{"m1 at seq 3", push([]uint64{3}, "m1"), true},
		{"the same messages", push([]uint64{1, 2}, "m1", "m2"), false},
		{"a new message", push([]uint64{3}, "m3"), false},
		{"to a device that never connected", history.Receiver{Kind: history.KindPush, Device: "u3/d1", Chat: "c", Seqs: []uint64{2}, MessageIDs: []string{"m3"}}, false},
	} {
		h := pushHistory(tc.second)
		off, _ := Check(h, Options{}).Result(NameIdenticalOrder)
		o := NewOnline(nil)
		for i := range h.Receivers {
			o.Receiver(&h.Receivers[i])
		}
		vs := o.Violations()
		i := slices.IndexFunc(vs, func(v Violation) bool { return v.Invariant == NameIdenticalOrder })
		switch {
		case !tc.violated && (i >= 0 || off.Status == Fail):
			t.Errorf("%s: online %+v, offline %s (%s); want neither", tc.name, vs, off.Status, off.Detail)
		case tc.violated && i < 0:
			t.Errorf("%s: not found online; offline %s (%s)", tc.name, off.Status, off.Detail)
		case tc.violated && off.Status != Fail:
			t.Errorf("%s: online %s, offline %s (%s)", tc.name, vs[i].Detail, off.Status, off.Detail)
		case tc.violated && !slices.Equal(vs[i].Lines, []int{6, 7}):
			t.Errorf("%s: lines %v, want [6 7] (%s)", tc.name, vs[i].Lines, vs[i].Detail)
		}
	}
}

// A push to a user with no join line for the chat before it (once the
// history has join lines), or a streamed push on a connection whose
// identity was refused, is reported at its line, as the check after the
// run fails it; a push to a member, a catch-up over a refused connection
// and a history without join lines are not.
func TestOnlinePushAuthorization(t *testing.T) {
	join := func(user, chat string) history.Receiver {
		return history.Receiver{Kind: history.KindJoin, User: user, Chat: chat}
	}
	connect := func(dev, user string, refused bool) history.Receiver {
		return history.Receiver{Kind: history.KindConnect, Device: dev, User: user, Refused: refused}
	}
	push := func(dev, chat string, catchUp bool) history.Receiver {
		return history.Receiver{Kind: history.KindPush, Device: dev, Chat: chat, Seqs: []uint64{1}, MessageIDs: []string{"m1"}, CatchUp: catchUp}
	}
	for _, tc := range []struct {
		name  string
		lines []history.Receiver
		want  []int // the violation's lines; nil: none
	}{
		{"to a non-member", []history.Receiver{join("u1", "c"), connect("u2/d", "u2", false), push("u2/d", "c", false)}, []int{3, 4}},
		{"joined another chat", []history.Receiver{join("u1", "c"), join("u1", "x"), connect("u1/d", "u1", false), push("u1/d", "x", false), push("u1/d", "d", false)}, []int{4, 6}},
		{"on a refused connection", []history.Receiver{join("u1", "c"), connect("u1/d", "u1", true), push("u1/d", "c", false)}, []int{3, 4}},
		{"to a member", []history.Receiver{join("u1", "c"), connect("u1/d", "u1", false), push("u1/d", "c", false)}, nil},
		{"a catch-up over a refused connection", []history.Receiver{join("u1", "c"), connect("u1/d", "u1", true), push("u1/d", "c", true)}, nil},
		{"joined after a reconnect", []history.Receiver{connect("u1/d", "u1", true), connect("u1/d", "u1", false), join("u1", "c"), push("u1/d", "c", false)}, nil},
		{"no join line at all", []history.Receiver{connect("u1/d", "u1", false), push("u1/d", "c", false)}, nil},
	} {
		h := &history.History{Header: history.Header{Version: history.Version}, Receivers: tc.lines}
		for i := range h.Receivers {
			h.Receivers[i].Line, h.Receivers[i].Time = i+2, int64(10*(i+1))
		}
		off, _ := Check(h, Options{}).Result(NamePushAuthorization)
		o := NewOnline(nil)
		for i := range h.Receivers {
			o.Receiver(&h.Receivers[i])
		}
		vs := o.Violations()
		i := slices.IndexFunc(vs, func(v Violation) bool { return v.Invariant == NamePushAuthorization })
		switch {
		case tc.want == nil && (i >= 0 || off.Status == Fail):
			t.Errorf("%s: online %+v, offline %s (%s); want neither", tc.name, vs, off.Status, off.Detail)
		case tc.want != nil && i < 0:
			t.Errorf("%s: not found online; offline %s (%s)", tc.name, off.Status, off.Detail)
		case tc.want != nil && off.Status != Fail:
			t.Errorf("%s: online %s, offline %s (%s)", tc.name, vs[i].Detail, off.Status, off.Detail)
		case tc.want != nil && !slices.Equal(vs[i].Lines, tc.want):
			t.Errorf("%s: lines %v, want %v (%s)", tc.name, vs[i].Lines, tc.want, vs[i].Detail)
		}
	}
}
