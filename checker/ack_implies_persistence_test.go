package checker

import (
	"testing"
)

func TestAckImpliesPersistence(t *testing.T) {
	t.Run("overwritten", func(t *testing.T) {
		// An unconditional Put at a reused sequence replaced the acked
		// message: ADR-004's literal "some message at that sequence" holds.
		b := newHB()
		l := b.send(1, "A", "k1", 1)
		b.counter("A", 1)
		m := b.msg("A", 1, "m-other", "k2")
		res := mustFail(t, b.check(t), NameAckImpliesPersistence, l.ok, m)
		mustContain(t, res.Detail, `holds "m-other"`)
	})
	t.Run("missing", func(t *testing.T) {
		b := newHB()
		b.send(1, "A", "k1", 1)
		l := b.send(1, "A", "k2", 2)
		b.counter("A", 2)
		b.msg("A", 1, "m-k1", "k1")
		mustFail(t, b.check(t), NameAckImpliesPersistence, l.ok)
	})
	t.Run("passes", func(t *testing.T) {
		must(t, validHistory().check(t), NameAckImpliesPersistence, Pass)
	})
	t.Run("n/a", func(t *testing.T) {
		b := newHB()
		b.send(1, "A", "k1", 1)
		b.counter("A", 1)
		na := mustNA(t, b.check(t), NameAckImpliesPersistence)
		mustContain(t, na.Reason, "1 ack but no final messages lines")
		b = newHB()
		b.invoke(1, "A", "k1")
		b.info(1, "A", "k1", "timeout")
		b.msg("A", 1, "m-k1", "k1")
		na = mustNA(t, b.check(t), NameAckImpliesPersistence)
		mustContain(t, na.Reason, "no acknowledged persists")
	})
}
