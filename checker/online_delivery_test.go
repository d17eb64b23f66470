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
