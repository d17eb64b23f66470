package checker

import (
	"strings"
	"testing"
)

func TestSequenceMonotonicFails(t *testing.T) {
	b := newHB()
	first := b.send(1, "A", "k1", 5)
	inv := b.invoke(2, "A", "k2")
	ok := b.ok(2, "A", "k2", 3, "m-k2")
	r := b.check(t)
	mustFail(t, r, NameSequenceMonotonic, first.ok, inv, ok)

	// Equal sequences acked one after the other also violate "smaller".
	b = newHB()
	first = b.send(1, "A", "k1", 4)
	inv = b.invoke(2, "A", "k2")
	ok = b.ok(2, "A", "k2", 4, "m-k2")
	mustFail(t, b.check(t), NameSequenceMonotonic, first.ok, inv, ok)
}

func TestSequenceMonotonicPasses(t *testing.T) {
	// ADR-004's two-phase race: B commits 12 before A commits 11 while the
	// two overlap — allowed in real time, though not in ADR-001's literal
	// persisted_at form.
	b := newHB()
	b.invoke(1, "A", "a")
	b.invoke(2, "A", "b")
	b.ok(2, "A", "b", 12, "m-b")
	b.ok(1, "A", "a", 11, "m-a")
	// A replay answering an old key later is not a new message.
	b.invoke(3, "A", "a")
	b.dedup(3, "A", "a", 11, "m-a")
	b.send(1, "A", "c", 13)
	must(t, b.check(t), NameSequenceMonotonic, Pass)

	b = newHB()
	b.invoke(1, "A", "a")
	b.fail(1, "A", "a", "not_a_member")
	na := mustNA(t, b.check(t), NameSequenceMonotonic)
	mustContain(t, na.Reason, "no persist was acknowledged")
}

// HISTORY.md: "of two persists that each created their message". A persist
// of unknown outcome created its key's message when a final line or a
// replay places it and no persist of the key was acked as new: no earlier
// than the key's first such persist was invoked.
func TestSequenceMonotonicCountsMessagesOfUnknownOutcome(t *testing.T) {
	// Under gaps allowed too: s2's k1 was invoked after seq 4 was
	// acknowledged, so the counter it drew from was past 4.
	allowed := strings.Replace(placedBelowAnEarlierAck, `"gaps":"forbidden",`, ``, 1)
	r := mustExact(t, allowed)
	mustFail(t, r, NameSequenceMonotonic, 5, 6, 7)
	mustContain(t, must(t, r, NameSequenceMonotonic, Fail).Detail, "the final idempotency record at line 7")
	kept := invokedBeforeTheAck(allowed)
	if kept == allowed {
		t.Fatal("the twin is the history")
	}
	must(t, mustExact(t, kept), NameSequenceMonotonic, Pass)

	// A replay places it as well as a final line does.
	replayed := placedHead + `}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":4,"message_id":"m4","dedup":false}
{"type":"invoke","process":2,"f":"persist","time":2,"chat":"c","key":"b","payload_hash":"h"}
{"type":"info","process":2,"f":"persist","time":3,"error":"timeout"}
{"type":"invoke","process":3,"f":"persist","time":4,"chat":"c","key":"b","payload_hash":"h"}
{"type":"ok","process":3,"f":"persist","time":5,"seq":3,"message_id":"m3","dedup":true}`
	r = mustExact(t, replayed)
	mustFail(t, r, NameSequenceMonotonic, 3, 4, 7)
	mustContain(t, must(t, r, NameSequenceMonotonic, Fail).Detail, "the replay at line 7")
	// b's first persist concurrent with a's: two-phase allocation lets it
	// hold the lower sequence.
	concurrent := reorderByTime(t, strings.Replace(replayed, `"time":2,"chat":"c","key":"b"`, `"time":0,"chat":"c","key":"b"`, 1))
	must(t, mustExact(t, concurrent), NameSequenceMonotonic, Pass)
	// A key acked as new made its message by that persist: a replay of it
	// is not another message.
	acked := placedHead + `}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"b","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":3,"message_id":"m3","dedup":false}
{"type":"invoke","process":2,"f":"persist","time":2,"chat":"c","key":"a","payload_hash":"h"}
{"type":"ok","process":2,"f":"persist","time":3,"seq":4,"message_id":"m4","dedup":false}
{"type":"invoke","process":3,"f":"persist","time":4,"chat":"c","key":"b","payload_hash":"h"}
{"type":"info","process":3,"f":"persist","time":5,"error":"timeout"}
{"type":"final","table":"messages","chat":"c","seq":3,"message_id":"m3","key":"b"}
{"type":"final","table":"messages","chat":"c","seq":4,"message_id":"m4","key":"a"}`
	must(t, mustExact(t, acked), NameSequenceMonotonic, Pass)
}
