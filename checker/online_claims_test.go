package checker

import (
	"testing"

	"github.com/chatseq/chatseq/history"
)

// A push or a sync's answer that shows a message before its sender's ack
// line, with another content or sender than the persist sent, is reported
// online when the ack comes (at the claim's line and the ack's), as the
// check after the run fails it; as sent, neither reports it. An outside
// tester's altered push and page, shown before the ack, passed online
// while the check after the run failed them.
func TestOnlineJudgesWhatWasShownBeforeItsAck(t *testing.T) {
	for _, tc := range []struct {
		name, hash, sender string
		push, fails        bool
	}{
		{"push as sent", "h:k2", "u1", true, false},
		{"push of another content", "h:other", "u1", true, true},
		{"push of another sender", "h:k2", "u9", true, true},
		{"sync as sent", "h:k2", "u1", false, false},
		{"sync of another content", "h:other", "u1", false, true},
		{"sync of another sender", "h:k2", "u9", false, true},
	} {
		b := newHB()
		b.join("A", "u1")
		b.connect("d1", "u1")
		// A first read saying what it returned: from here on each
		// persist's content is kept with its ack.
		b.send(1, "A", "k1", 1)
		b.syncInvoke(2, "A", 0, 10)
		b.syncOKSaying(2, "A", []uint64{1}, []string{"k1"}, []string{"u1"}, []string{"h:k1"})
		b.invoke(1, "A", "k2")
		b.alloc(1, "A", 2)
		b.commit("A", "k2", 2, "m-k2")
		invariant, shown := NameSyncCompleteness, 0
		if tc.push {
			invariant = NameIdenticalOrder
			shown = b.recv(history.Receiver{Kind: history.KindPush, Device: "d1", Chat: "A", Seqs: []uint64{2}, MessageIDs: []string{"m-k2"},
				PayloadHashes: []string{tc.hash}, Senders: []string{tc.sender}})
		} else {
			b.syncInvoke(2, "A", 1, 10)
			shown = b.syncOKSaying(2, "A", []uint64{2}, []string{"k2"}, []string{tc.sender}, []string{tc.hash})
		}
		ack := b.ok(1, "A", "k2", 2, "m-k2")
		b.settled("d1")
		b.dump(false)
		judgedAlike(t, tc.name, b, invariant, tc.fails, []int{shown, ack})
	}
}
