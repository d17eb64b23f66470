package store

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history"
)

// The Log keeps a process's open operation by number for the processes a
// run hands out and in a map beyond them, and a process's last sender by
// process modulo senderCache: the same lines make the same records and
// warnings whichever a process's number falls in, and whether or not two
// processes share a sender's slot, sender switches included.
func TestLogReadsEveryProcessNumberAlike(t *testing.T) {
	lines := func(p [3]int) []history.Event {
		a, b, c := p[0], p[1], p[2] // b and c share a sender slot
		return []history.Event{
			{Kind: history.KindInvoke, F: history.FPersist, Process: a, Chat: "c1", Key: "k1", Sender: "alice"},
			{Kind: history.KindInvoke, F: history.FPersist, Process: b, Chat: "c2", Key: "k2", Sender: "bob"},
			{Kind: history.KindTrace, F: history.FAllocate, Process: a, Chat: "c1", Seq: 1, HasStart: true},
			{Kind: history.KindTrace, F: history.FAllocate, Process: b, Chat: "c9", Seq: 1, HasStart: true}, // not its persist's chat
			{Kind: history.KindOK, F: history.FPersist, Process: a, Chat: "c1", Key: "k1", Seq: 1, MessageID: "m1"},
			{Kind: history.KindInvoke, F: history.FPersist, Process: c, Chat: "c2", Key: "k3", Sender: "carol"},
			{Kind: history.KindInvoke, F: history.FPersist, Process: c, Chat: "c2", Key: "k4", Sender: "bob"}, // invoked again, as bob
			{Kind: history.KindOK, F: history.FPersist, Process: b, Chat: "c2", Key: "k2", Seq: 2, MessageID: "m2"},
			{Kind: history.KindInfo, F: history.FPersist, Process: c, Error: "crash"},
			{Kind: history.KindOK, F: history.FPersist, Process: c, Seq: 3, MessageID: "m3"}, // nothing open
			{Kind: history.KindTrace, F: history.FAllocate, Process: c, Chat: "c2", Seq: 4},  // no owner, no start
			{Kind: history.KindInvoke, F: history.FSync, Process: a, Chat: "c1", Limit: 10},
			{Kind: history.KindTrace, F: history.FAllocate, Process: a, Chat: "c1", Seq: 5, HasStart: true}, // owner is a sync
			{Kind: history.KindInvoke, F: history.FPersist, Process: b, Chat: "c1", Key: "k5", Sender: "dave"},
			{Kind: history.KindInvoke, F: history.FPersist, Process: a, Chat: "c1", Key: "k6", Sender: "alice"},
		}
	}
	read := func(p [3]int) (ops []Op, allocs []Alloc, senders []uint32, warnings []string) {
		l := NewLog()
		for i, e := range lines(p) {
			e.Line, e.Time = i+2, int64(10*i)
			if e.HasStart {
				e.Start = e.Time // issued as it returned: after its persist's invoke
			}
			l.Event(&e)
		}
		dense, denseAllocs := l.CompactRecords()
		ops = slices.Clone(dense.Flat())
		for i := range ops {
			ops[i].Process = 0
		}
		for i, w := range l.Warnings {
			for k, n := range p {
				w = strings.ReplaceAll(w, fmt.Sprintf("process %d,", n), fmt.Sprintf("process P%d,", k))
				w = strings.ReplaceAll(w, fmt.Sprintf("process %d ", n), fmt.Sprintf("process P%d ", k))
			}
			l.Warnings[i] = w
		}
		for i := range ops {
			senders = append(senders, ops[i].Sender())
		}
		return ops, slices.Clone(denseAllocs.Flat()), senders, l.Warnings
	}
	wantOps, wantAllocs, wantSenders, wantWarnings := read([3]int{1, 2, 2 + SenderCache})
	if len(wantWarnings) != 6 || !slices.Equal(wantSenders, []uint32{0, 1, 2, 1, 0, 3, 0}) {
		t.Fatalf("warnings %q, senders %v", wantWarnings, wantSenders)
	}
	for _, p := range [][3]int{
		{DenseProcesses + 1, DenseProcesses + 2, DenseProcesses + 2 + SenderCache},
		{3, DenseProcesses - 1, 2*DenseProcesses - 1},
		{7, 1000, 1000 + 5*SenderCache},
	} {
		ops, allocs, senders, warnings := read(p)
		if !slices.Equal(ops, wantOps) || !slices.Equal(allocs, wantAllocs) || !slices.Equal(senders, wantSenders) || !slices.Equal(warnings, wantWarnings) {
			t.Errorf("processes %v: ops %+v\nallocs %+v\nsenders %v\nwarnings %q\nwant %+v\n%+v\n%v\n%q", p, ops, allocs, senders, warnings, wantOps, wantAllocs, wantSenders, wantWarnings)
		}
	}
}

// A final line's sender is the one sender() gives, whichever names share
// finalSender's cache slot (same length, same last byte) and in whatever
// order they come.
func TestFinalSenderIsTheSender(t *testing.T) {
	l, ref := NewLog(), NewLog()
	names := []string{"alice1", "bobby1", "carol1", "a", "b", "alice1", "user-7", "user-17", "bobby1", "user-7", "é1", ""}
	for round := range 3 {
		for i, s := range names {
			if got, want := l.FinalSender(s), ref.Sender(s); got != want || l.SenderNames[got] != s {
				t.Fatalf("round %d, name %d %q: finalSender %d (%q), sender %d", round, i, s, got, l.SenderNames[got], want)
			}
		}
	}
}
