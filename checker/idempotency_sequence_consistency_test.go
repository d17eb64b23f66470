package checker

import (
	"testing"
)

func TestIdempotencySequenceConsistency(t *testing.T) {
	b := newHB()
	b.send(1, "A", "k1", 1)
	b.counter("A", 1)
	m := b.msg("A", 1, "m-k1", "k1")
	i := b.idem("A", "k1", 2, "m-k1")
	mustFail(t, b.check(t), NameIdempotencySeqConsist, m, i)

	b = newHB()
	b.send(1, "A", "k1", 1)
	b.counter("A", 1)
	b.msg("A", 1, "m-k1", "k1")
	b.idem("A", "k1", 1, "m-k1")
	i = b.idem("A", "k2", 5, "m-k2") // a record without its message
	mustFail(t, b.check(t), NameIdempotencySeqConsist, i)

	b = newHB()
	b.send(1, "A", "k1", 1)
	b.counter("A", 1)
	m = b.msg("A", 1, "m-k1", "k1")
	b.idem("A", "other", 9, "m-9")
	b.msg("A", 9, "m-9", "other")
	mustFail(t, b.check(t), NameIdempotencySeqConsist, m) // k1's message has no record

	// Three records of one key: the first two are named.
	b = newHB()
	b.send(1, "A", "k1", 1)
	b.counter("A", 1)
	b.msg("A", 1, "m-k1", "k1")
	i1 := b.idem("A", "k1", 1, "m-k1")
	i2 := b.idem("A", "k1", 1, "m-k1")
	b.idem("A", "k1", 1, "m-k1")
	mustFail(t, b.check(t), NameIdempotencySeqConsist, i1, i2)

	must(t, validHistory().check(t), NameIdempotencySeqConsist, Pass)
	b = newHB()
	b.send(1, "A", "k1", 1)
	b.counter("A", 1)
	b.msg("A", 1, "m-k1", "k1")
	mustContain(t, mustNA(t, b.check(t), NameIdempotencySeqConsist).Reason, "no final idempotency lines")

	// Messages without a key: the table is there but cannot be matched.
	b = newHB()
	b.send(1, "A", "k1", 1)
	b.idem("A", "k1", 1, "m-k1")
	b.msg("A", 1, "m-k1", "k1")
	b.msg("A", 2, "m-2", "")
	res := must(t, b.check(t), NameIdempotencySeqConsist, Unknown)
	mustContain(t, res.Detail, "1 final message carry no key")
}
