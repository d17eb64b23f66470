package checker

import (
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history"
)

func TestSyncCompletenessMissedMessage(t *testing.T) {
	b := newHB()
	b.send(1, "A", "k1", 1)
	l2 := b.send(1, "A", "k2", 2)
	si := b.syncInvoke(2, "A", 0, 10)
	so := b.syncOK(2, "A", 1)
	res := mustFail(t, b.check(t), NameSyncCompleteness, si, so, l2.ok)
	mustContain(t, res.Detail, "missed seq 2")
}

func TestSyncCompletenessFullPage(t *testing.T) {
	b := newHB()
	b.send(1, "A", "k1", 1)
	b.send(1, "A", "k2", 2)
	b.syncInvoke(2, "A", 0, 1)
	b.syncOK(2, "A", 1) // a full page answers up to its last sequence
	b.syncInvoke(2, "A", 1, 1)
	b.syncOK(2, "A", 2)
	b.dump(false)
	must(t, b.check(t), NameSyncCompleteness, Pass)

	// A short page must hold everything above after.
	b = newHB()
	b.send(1, "A", "k1", 1)
	b.send(1, "A", "k2", 2)
	l3 := b.send(1, "A", "k3", 3)
	si := b.syncInvoke(2, "A", 0, 3)
	so := b.syncOK(2, "A", 1, 2)
	mustFail(t, b.check(t), NameSyncCompleteness, si, so, l3.ok)
}

func TestSyncCompletenessShape(t *testing.T) {
	cases := map[string]struct {
		after uint64
		limit int
		seqs  []uint64
		ids   []string
		want  string
	}{
		"descending":  {0, 10, []uint64{2, 1}, []string{"m-k2", "m-k1"}, "not strictly ascending"},
		"repeated":    {0, 10, []uint64{1, 1}, []string{"m-k1", "m-k1"}, "not strictly ascending"},
		"over limit":  {0, 1, []uint64{1, 2}, []string{"m-k1", "m-k2"}, "above its limit"},
		"below after": {1, 10, []uint64{1, 2}, []string{"m-k1", "m-k2"}, "not above after=1"},
		"ids":         {0, 10, []uint64{1, 2}, []string{"m-k1"}, "message_ids"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			b := newHB()
			b.send(1, "A", "k1", 1)
			b.send(1, "A", "k2", 2)
			si := b.syncInvoke(2, "A", c.after, c.limit)
			so := b.syncOKIDs(2, "A", c.seqs, c.ids)
			res := mustFail(t, b.check(t), NameSyncCompleteness, si, so)
			mustContain(t, res.Detail, c.want)
		})
	}
}

func TestSyncCompletenessReturnsOnlyRealMessages(t *testing.T) {
	b := newHB()
	b.send(1, "A", "k1", 1)
	b.syncInvoke(2, "A", 0, 10)
	so := b.syncOKIDs(2, "A", []uint64{1, 2}, []string{"m-k1", "m-ghost"})
	b.dump(false)
	res := mustFail(t, b.check(t), NameSyncCompleteness, so)
	mustContain(t, res.Detail, "no final message has that sequence")

	b = newHB()
	b.send(1, "A", "k1", 1)
	b.syncInvoke(2, "A", 0, 10)
	so = b.syncOKIDs(2, "A", []uint64{1}, []string{"m-wrong"})
	d := b.dump(false)
	mustFail(t, b.check(t), NameSyncCompleteness, so, d.msg["m-k1"])

	// Without the final table the acks are the reference.
	b = newHB()
	l := b.send(1, "A", "k1", 1)
	b.syncInvoke(2, "A", 0, 10)
	so = b.syncOKIDs(2, "A", []uint64{1}, []string{"m-wrong"})
	mustFail(t, b.check(t), NameSyncCompleteness, l.ok, so)
}

func TestSyncCompletenessLateCommitWarning(t *testing.T) {
	// ADR-004's two-phase hazard: 11 is allocated first but committed after
	// a reader already saw 12, so a cursor at 12 never sees 11.
	b := newHB()
	b.invoke(1, "A", "a")
	b.invoke(2, "A", "b")
	b.alloc(1, "A", 1)
	b.alloc(2, "A", 2)
	b.commit("A", "b", 2, "m-b")
	b.ok(2, "A", "b", 2, "m-b")
	b.syncInvoke(3, "A", 0, 10)
	b.syncOK(3, "A", 2)
	b.commit("A", "a", 1, "m-a")
	b.ok(1, "A", "a", 1, "m-a")
	b.dump(true)
	r := b.check(t)
	must(t, r, NameSyncCompleteness, Pass)
	if r.Stats.LateCommits != 1 {
		t.Fatalf("late commits = %d", r.Stats.LateCommits)
	}
	var warning string
	for _, w := range r.Warnings {
		if strings.HasPrefix(w, "late commits below a cursor") {
			warning = w
		}
	}
	mustContain(t, warning, `chat "A" seq 1`)
	mustContain(t, warning, "acknowledged only after that sync returned, or never: 1)")
	mustAllPass(t, r) // a hazard, not a violation of any invariant as written
}

func TestSyncCompletenessNotApplicableWithoutSyncs(t *testing.T) {
	b := newHB()
	b.send(1, "A", "k1", 1)
	mustContain(t, mustNA(t, b.check(t), NameSyncCompleteness).Reason, "no sync in the history")

	b.syncInvoke(2, "A", 0, 10)
	b.add(history.Event{Kind: history.KindInfo, Process: 2, F: history.FSync, Chat: "A", Error: "timeout"})
	na := mustNA(t, b.check(t), NameSyncCompleteness)
	mustContain(t, na.Reason, "no sync completed ok (1 sync invoked)")
}
