package checker

import (
	"testing"
)

func TestCounterLowerBound(t *testing.T) {
	b := newHB()
	b.send(1, "A", "k1", 1)
	c := b.counter("A", 1)
	m1 := b.msg("A", 1, "m-k1", "k1")
	m2 := b.msg("A", 1, "m-x", "x")
	res := mustFail(t, b.check(t), NameCounterLowerBound, c, m1, m2)
	mustContain(t, res.Detail, "2 final messages but the counter is 1")

	must(t, validHistory().check(t), NameCounterLowerBound, Pass)
	b = newHB()
	b.send(1, "A", "k1", 1)
	b.counter("A", 1)
	mustContain(t, mustNA(t, b.check(t), NameCounterLowerBound).Reason, "no final messages lines")
	b = newHB()
	b.send(1, "A", "k1", 1)
	mustContain(t, mustNA(t, b.check(t), NameCounterLowerBound).Reason, "no final counters or messages lines")
}
