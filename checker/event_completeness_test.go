package checker

import (
	"testing"

	"github.com/chatseq/chatseq/history"
)

func TestEventCompletenessUnpublishedAck(t *testing.T) {
	// ADR-004 step 5: Kafka failed after the persist; the retry took the
	// idempotency fast path, which returns the cached answer without
	// publishing, so the acked message never reaches the topic.
	b := newHB()
	b.send(1, "A", "k1", 1)
	b.invoke(1, "A", "k2")
	b.alloc(1, "A", 2)
	b.commit("A", "k2", 2, "m-k2")
	b.info(1, "A", "k2", "kafka_unavailable") // stored, so not "fail"
	b.invoke(1, "A", "k2")
	retry := b.dedup(1, "A", "k2", 2, "m-k2")
	b.dump(false)
	b.event("A", 1, "m-k1", 0, 0)
	mustFail(t, b.check(t), NameEventCompleteness, retry)
}

func TestEventCompletenessPhantomEvent(t *testing.T) {
	b := newHB()
	b.send(1, "A", "k1", 1)
	b.dump(true)
	e := b.event("A", 2, "m-ghost", 0, 1)
	res := mustFail(t, b.check(t), NameEventCompleteness, e)
	mustContain(t, res.Detail, "not in the final messages table")
}

// Without the final messages table the acks say which message a
// sequence holds: an event naming another at an acked sequence is no
// message of the chat (it passed, "phantom events not judged": a
// red-team's history). One at a sequence no ack holds stays unjudged
// where another writer may have written it (without sole_writer;
// TestPushesAndEventsBeyondWhatClientsCouldWriteFail has it with).
func TestEventCompletenessComparesEventsWithAcksWithoutTheTable(t *testing.T) {
	b := newHB()
	delete(b.h.Header.Extra, history.SoleWriterField)
	b.send(1, "A", "k1", 1)
	second := b.send(1, "A", "k2", 2)
	b.event("A", 1, "m-k1", 0, 0)
	b.event("A", 2, "m-k2", 0, 1)
	b.event("A", 99, "m-elsewhere", 0, 2)
	res := must(t, b.check(t), NameEventCompleteness, Pass)
	mustContain(t, res.Detail, "2 events at an acknowledged sequence compared with its ack")
	ghost := b.event("A", 2, "m-ghost", 0, 3)
	res = mustFail(t, b.check(t), NameEventCompleteness, ghost, second.ok)
	mustContain(t, res.Detail, `names chat "A" seq 2 "m-ghost", but seq 2 was acknowledged as "m-k2"`)
}

func TestEventCompletenessPassesWithDuplicatesAndDisorder(t *testing.T) {
	b := newHB()
	b.send(1, "A", "k1", 1)
	b.send(1, "A", "k2", 2)
	b.invoke(2, "A", "k3") // persisted, never acked, never published
	b.alloc(2, "A", 3)
	b.commit("A", "k3", 3, "m-k3")
	b.info(2, "A", "k3", "timeout")
	b.dump(false)
	b.event("A", 2, "m-k2", 0, 0)
	b.event("A", 1, "m-k1", 0, 1) // out of order within the partition
	b.event("A", 1, "m-k1", 0, 2) // a duplicate
	r := b.check(t)
	res := must(t, r, NameEventCompleteness, Pass)
	mustContain(t, res.Detail, "1 duplicate event")
	mustContain(t, res.Detail, "1 message persisted but never acknowledged and without an event")
	mustContain(t, res.Detail, "1 event after a higher sequence")
	if r.Stats.DuplicateEvents != 1 {
		t.Fatalf("duplicate events = %d", r.Stats.DuplicateEvents)
	}
}

func TestEventCompletenessApplicability(t *testing.T) {
	b := newHB()
	b.send(1, "A", "k1", 1)
	b.dump(false)
	na := mustNA(t, b.check(t), NameEventCompleteness)
	mustContain(t, na.Reason, "no final events lines")

	b = newHBContract(history.Contract{Events: history.EventsNone})
	b.send(1, "A", "k1", 1)
	b.dump(true)
	na = mustNA(t, b.check(t), NameEventCompleteness)
	mustContain(t, na.Reason, "contract events: none")

	// Stated, but the history holds no events lines: nothing to judge.
	b = newHBContract(history.Contract{Events: history.EventsAtLeastOnce})
	b.send(1, "A", "k1", 1)
	b.dump(false)
	na = mustNA(t, b.check(t), NameEventCompleteness)
	mustContain(t, na.Reason, "at-least-once but the history has no final events lines")

	// Options override the header.
	b = newHB()
	b.send(1, "A", "k1", 1)
	b.dump(true)
	r := Check(&b.h, Options{Contract: &history.Contract{Events: history.EventsNone}})
	mustNA(t, r, NameEventCompleteness)
	if r.Contract.Events != history.EventsNone {
		t.Fatalf("contract = %+v", r.Contract)
	}
}
