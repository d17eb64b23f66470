package checker

import (
	"testing"
)

func TestGapIsAllocationWithoutPersistence(t *testing.T) {
	t.Run("explained gap", func(t *testing.T) {
		b := newHB()
		b.invoke(1, "A", "k1")
		b.alloc(1, "A", 1)
		b.info(1, "A", "k1", "crash_after_allocate")
		b.send(1, "A", "k1", 2)
		b.dump(false)
		r := b.check(t)
		res := must(t, r, NameGapIsAllocation, Pass)
		mustContain(t, res.Detail, "crash_after_allocate 1")
		if r.Stats.Gaps != 1 || r.Stats.GapRate != 0.5 || r.Stats.GapCauses["crash_after_allocate"] != 1 {
			t.Fatalf("stats = %+v", r.Stats)
		}
	})
	t.Run("unexplained gap", func(t *testing.T) {
		b := newHB()
		b.send(1, "A", "k1", 1)
		b.send(1, "A", "k3", 3)
		b.dump(false) // counter 3, messages 1 and 3, nothing allocated 2
		c := b.h.Finals[0].Line
		res := mustFail(t, b.check(t), NameGapIsAllocation, c)
		mustContain(t, res.Detail, "the first is 2")
	})
	t.Run("untraced gaps above the last allocation", func(t *testing.T) {
		b := newHB()
		b.send(1, "A", "k1", 1)
		c := b.counter("A", 1_000_000_000_000) // a corrupt counter costs nothing extra
		b.msg("A", 1, "m-k1", "k1")
		r := b.check(t)
		res := mustFail(t, r, NameGapIsAllocation, c)
		mustContain(t, res.Detail, "999999999999 sequences")
	})
	t.Run("n/a without traces", func(t *testing.T) {
		b := newHB()
		b.invoke(1, "A", "k2")
		b.ok(1, "A", "k2", 2, "m-k2")
		b.counter("A", 2)
		b.msg("A", 2, "m-k2", "k2")
		na := mustNA(t, b.check(t), NameGapIsAllocation)
		mustContain(t, na.Reason, "1 gaps in 1 chat but no allocate traces")
	})
	t.Run("no gaps needs no traces", func(t *testing.T) {
		b := newHB()
		b.invoke(1, "A", "k1")
		b.ok(1, "A", "k1", 1, "m-k1")
		b.counter("A", 1)
		b.msg("A", 1, "m-k1", "k1")
		must(t, b.check(t), NameGapIsAllocation, Pass)
	})
}
