package checker

import (
	"fmt"
	"slices"
	"testing"

	"github.com/chatseq/chatseq/history"
)

// One message id acknowledged at two sequences of a chat is reported
// online at the second ack, as the check after the run fails it; the same
// id in two chats, a replay answering its sequence again, and distinct
// ids are not. An outside tester's service that named two messages alike
// passed online (sequence_uniqueness's other half was left to the check
// after the run).
func TestOnlineFindsOneIDAtTwoSequences(t *testing.T) {
	for _, tc := range []struct {
		name          string
		chat2, id2    string
		dedupOfFirst  bool
		fails         bool
		wantLineOfAck int // 1 or 2: which ack the violation's lines end at
	}{
		{name: "one id at two sequences", chat2: "A", id2: "m-same", fails: true},
		{name: "two ids", chat2: "A", id2: "m-other"},
		{name: "one id in two chats", chat2: "B", id2: "m-same"},
		{name: "a replay of the first", chat2: "A", id2: "m-same", dedupOfFirst: true},
	} {
		b := newHB()
		b.invoke(1, "A", "k1")
		b.alloc(1, "A", 1)
		b.commit("A", "k1", 1, "m-same")
		first := b.ok(1, "A", "k1", 1, "m-same")
		var second int
		if tc.dedupOfFirst {
			b.invoke(2, "A", "k1")
			second = b.dedup(2, "A", "k1", 1, "m-same")
		} else {
			seq := uint64(2)
			if tc.chat2 == "B" {
				seq = 1
			}
			b.invoke(2, tc.chat2, "k2")
			b.alloc(2, tc.chat2, seq)
			b.commit(tc.chat2, "k2", seq, tc.id2)
			second = b.ok(2, tc.chat2, "k2", seq, tc.id2)
		}
		b.dump(false)
		judgedAlike(t, tc.name, b, NameSequenceUniqueness, tc.fails, []int{first, second})
	}
}

// The newest acks' ids are kept as their table grows and across a
// generation: an id given again within a generation's acks is found,
// one given again past two generations is left to the check after the
// run.
func TestRecentIDsFindWithinTheirWindow(t *testing.T) {
	for _, tc := range []struct {
		between int
		found   bool
	}{{0, true}, {5000, true}, {100_000, true}, {140_000, false}} {
		var evs []history.Event
		persist := func(key string, seq uint64, id string) {
			evs = append(evs,
				history.Event{Kind: history.KindInvoke, Process: 0, F: history.FPersist, Chat: "c", Key: key, Sender: "u"},
				history.Event{Kind: history.KindOK, Process: 0, F: history.FPersist, Chat: "c", Key: key, Seq: seq, MessageID: id})
		}
		persist("k0", 1, "dup")
		for s := range tc.between {
			persist(fmt.Sprint("k", s+1), uint64(s+2), fmt.Sprint("m", s+1))
		}
		persist("kz", uint64(tc.between+2), "dup")
		o, _ := onlineOf(numberedHistory(evs))
		got := slices.ContainsFunc(o.Violations(), func(v Violation) bool { return v.Invariant == NameSequenceUniqueness })
		if got != tc.found {
			t.Errorf("%d acks between: found online %v, want %v", tc.between, got, tc.found)
		}
	}
}

// judgedAlike checks that the check after the run and the online check
// judge invariant alike on b's history (case name): failed after the run
// and found online at lines, when fails; else neither.
func judgedAlike(t *testing.T, name string, b *hb, invariant string, fails bool, lines []int) {
	t.Helper()
	off, _ := b.check(t).Result(invariant)
	vs := onlineInLineOrder(&b.h).Violations()
	i := slices.IndexFunc(vs, func(v Violation) bool { return v.Invariant == invariant })
	switch {
	case (off.Status == Fail) != fails:
		t.Errorf("%s: offline %s (%s)", name, off.Status, off.Detail)
	case !fails && i >= 0:
		t.Errorf("%s: online found %s", name, vs[i].Detail)
	case fails && i < 0:
		t.Errorf("%s: not found online; offline %s", name, off.Detail)
	case fails && !slices.Equal(vs[i].Lines, lines):
		t.Errorf("%s: online lines %v, want %v (%s)", name, vs[i].Lines, lines, vs[i].Detail)
	}
}
