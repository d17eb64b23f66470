package checker

import (
	"testing"

	"github.com/chatseq/chatseq/history"
)

func TestSequenceUniquenessFinalTable(t *testing.T) {
	b := newHB()
	b.send(1, "A", "k1", 1)
	m1 := b.msg("A", 1, "m-k1", "k1")
	m2 := b.msg("A", 1, "m-other", "k9") // a user-written file repeating a primary key
	r := b.check(t)
	res := mustFail(t, r, NameSequenceUniqueness, m1, m2)
	mustContain(t, res.Detail, "holds two messages")
}

// A messages line written twice, even equal, is two rows under one primary
// key (chat, seq), as two records of one key fail
// idempotency_sequence_consistency (oracle D6).
func TestSequenceUniquenessRepeatedLine(t *testing.T) {
	build := func(repeat bool) (*hb, int, int) {
		b := newHB()
		b.send(1, "A", "k1", 1)
		first := b.msg("A", 1, "m-k1", "k1")
		again := 0
		if repeat {
			again = b.msg("A", 1, "m-k1", "k1")
		}
		b.tableRead(history.TableMessages, 0)
		return b, first, again
	}
	b, _, _ := build(false)
	must(t, b.check(t), NameSequenceUniqueness, Pass)
	b, first, again := build(true)
	res := mustFail(t, b.check(t), NameSequenceUniqueness, first, again)
	mustContain(t, res.Detail, `chat "A" seq 1 is in the final messages table twice (lines 5 and 6)`)
}

func TestSequenceUniquenessAcks(t *testing.T) {
	b := newHB()
	b.invoke(1, "A", "k1")
	b.invoke(2, "A", "k2")
	ok1 := b.ok(1, "A", "k1", 7, "m-k1")
	ok2 := b.ok(2, "A", "k2", 7, "m-k2")
	r := b.check(t)
	res := mustFail(t, r, NameSequenceUniqueness, ok1, ok2)
	mustContain(t, res.Detail, "acknowledged for two messages")
}

func TestSequenceUniquenessPasses(t *testing.T) {
	b := newHB()
	b.send(1, "A", "k1", 1)
	b.invoke(2, "A", "k1")
	b.dedup(2, "A", "k1", 1, "m-k1") // the same message acked twice
	b.send(1, "B", "k2", 1)          // the same sequence in another chat
	b.dump(false)
	must(t, b.check(t), NameSequenceUniqueness, Pass)

	b = newHB()
	b.invoke(1, "A", "k1")
	b.info(1, "A", "k1", "timeout")
	mustContain(t, mustNA(t, b.check(t), NameSequenceUniqueness).Reason, "no acknowledged persists and no final messages lines")
}
