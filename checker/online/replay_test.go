package online

import (
	"fmt"
	"testing"

	"github.com/chatseq/chatseq/history"
)

// What timedOut keeps of keys answered ok since is dropped as it grows,
// and what a later replay needs is kept: after 20,000 keys that each
// timed out and were answered, the map holds a few thousand at most, and
// a key that timed out first, never answered, still has its first replay
// judged (seq 1 acked before its persist was invoked, the replay
// answering 1).
func TestTimedOutKeysAnsweredSinceAreDropped(t *testing.T) {
	o := New(nil)
	o.Header(&history.Header{Version: history.Version})
	line, now := 1, int64(0)
	emit := func(e history.Event) {
		line++
		now++
		e.Line, e.Time, e.Chat, e.Sender = line, now, "c", "u"
		o.Event(&e)
	}
	persist := func(p int, key string) {
		emit(history.Event{Kind: history.KindInvoke, Process: p, F: history.FPersist, Key: key})
	}
	persist(1, "a")
	emit(history.Event{Kind: history.KindOK, Process: 1, F: history.FPersist, Seq: 1, MessageID: "m1"})
	persist(2, "lost")
	emit(history.Event{Kind: history.KindInfo, Process: 2, F: history.FPersist, Error: "timeout"})
	const keys = 20_000
	for i := range keys {
		key := fmt.Sprint("k", i)
		persist(3, key)
		emit(history.Event{Kind: history.KindInfo, Process: 3, F: history.FPersist, Error: "timeout"})
		persist(3, key)
		emit(history.Event{Kind: history.KindOK, Process: 3, F: history.FPersist, Seq: uint64(i + 2), MessageID: fmt.Sprint("m", i+2)})
		o.BatchDone(1) // as a slow run's tap: each answer judged at once
	}
	if n := len(o.madeBy); n > 2*madeByPruned {
		t.Fatalf("%d keys kept of %d answered since they timed out", n, keys)
	}
	if len(o.Violations()) > 0 {
		t.Fatalf("a valid run: %+v", o.Violations())
	}
	persist(4, "lost")
	emit(history.Event{Kind: history.KindOK, Process: 4, F: history.FPersist, Seq: 1, MessageID: "m1", Dedup: true})
	vs := o.Violations()
	if len(vs) != 1 || vs[0].Invariant != SequenceMonotonic || vs[0].Lines[1] != 4 {
		t.Fatalf("the lost key's replay: %+v, want sequence_monotonic from its persist at line 4", vs)
	}
}
