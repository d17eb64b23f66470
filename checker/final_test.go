package checker

import (
	"testing"

	"github.com/chatseq/chatseq/history"
)

func TestCounterIsLastAllocated(t *testing.T) {
	t.Run("missing counter", func(t *testing.T) {
		b := newHB()
		b.invoke(1, "A", "k1")
		b.fail(1, "A", "k1", "counter_missing")
		line := b.counterMissing("A")
		res := mustFail(t, b.check(t), NameCounterIsLastAllocated, line)
		mustContain(t, res.Detail, `chat "A": counter missing`)
		mustContain(t, res.Detail, "SEV-2")
	})
	t.Run("counter ahead of allocations", func(t *testing.T) {
		b := newHB()
		l := b.send(1, "A", "k1", 1)
		c := b.counter("A", 3)
		mustFail(t, b.check(t), NameCounterIsLastAllocated, c, l.alloc)
	})
	t.Run("counter behind allocations", func(t *testing.T) {
		// What ADR-004's recovery procedure does when the top allocations
		// were gaps: it rebuilds the counter from the highest message.
		b := newHB()
		b.send(1, "A", "k1", 1)
		b.invoke(1, "A", "k2")
		a := b.alloc(1, "A", 2)
		b.info(1, "A", "k2", "crash_after_allocate")
		c := b.counter("A", 1)
		mustFail(t, b.check(t), NameCounterIsLastAllocated, c, a)
	})
	t.Run("passes", func(t *testing.T) {
		must(t, validHistory().check(t), NameCounterIsLastAllocated, Pass)
	})
	t.Run("n/a without traces or counters", func(t *testing.T) {
		b := newHB()
		b.invoke(1, "A", "k1")
		b.ok(1, "A", "k1", 1, "m")
		b.counter("A", 1)
		na := mustNA(t, b.check(t), NameCounterIsLastAllocated)
		mustContain(t, na.Reason, "no allocate traces: the last allocated sequence is not known (1 chat: the counter exists)")

		b = newHB()
		b.send(1, "A", "k1", 1)
		na = mustNA(t, b.check(t), NameCounterIsLastAllocated)
		mustContain(t, na.Reason, "no final counters lines")
	})
}

func TestSequenceMonotonicity(t *testing.T) {
	b := newHB()
	b.send(1, "A", "k1", 2)
	c := b.counter("A", 1)
	m := b.msg("A", 2, "m-k1", "k1")
	mustFail(t, b.check(t), NameSequenceMonotonicity, c, m)

	// Against acks when the messages table was not dumped.
	b = newHB()
	l := b.send(1, "A", "k1", 3)
	c = b.counter("A", 2)
	mustFail(t, b.check(t), NameSequenceMonotonicity, c, l.ok)

	must(t, validHistory().check(t), NameSequenceMonotonicity, Pass)
	b = newHB()
	b.send(1, "A", "k1", 1)
	mustContain(t, mustNA(t, b.check(t), NameSequenceMonotonicity).Reason, "no final counters lines")
	b = newHB()
	b.counter("A", 0)
	mustContain(t, mustNA(t, b.check(t), NameSequenceMonotonicity).Reason, "no final messages, idempotency records, acks or synced messages")

	// An idempotency record is written with its message: the counter is
	// at least its sequence too (the oracle's reading).
	b = newHB()
	c = b.counter("A", 3)
	b.tableRead(history.TableCounters, 0)
	rec := b.idem("A", "k2", 4, "m3")
	b.tableRead(history.TableIdempotency, 0)
	res := mustFail(t, b.check(t), NameSequenceMonotonicity, c, rec)
	mustContain(t, res.Detail, "final counter 3 (line 2) is below the seq 4 of an idempotency record (line 4)")
	b.h.Finals[0].Value = 4
	must(t, b.check(t), NameSequenceMonotonicity, Pass)

	// And at least every sequence a sync returned: that was a message's.
	b = newHB()
	b.syncInvoke(1, "A", 0, 0)
	synced := b.syncOKIDs(1, "A", []uint64{1}, []string{"m1"})
	c = b.counter("A", 0)
	b.tableRead(history.TableCounters, 0)
	res = mustFail(t, b.check(t), NameSequenceMonotonicity, c, synced)
	mustContain(t, res.Detail, "final counter 0 (line 4) is below the seq 1 a sync returned (line 3)")
	b.h.Finals[0].Value = 1
	must(t, b.check(t), NameSequenceMonotonicity, Pass)
}

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

func TestGapless(t *testing.T) {
	forbidden := history.Contract{Gaps: history.GapsForbidden}
	b := newHBContract(forbidden)
	b.send(1, "A", "k1", 1)
	b.send(1, "A", "k3", 3)
	d := b.dump(false)
	res := mustFail(t, b.check(t), NameGapless, d.msg["m-k1"], d.msg["m-k3"])
	mustContain(t, res.Detail, "no message at seq 2")

	b = newHBContract(forbidden)
	b.send(1, "A", "k1", 1)
	b.send(2, "A", "k2", 2)
	b.dump(false)
	must(t, b.check(t), NameGapless, Pass)

	// Without the final table: a hole below an ack needs an operation of
	// unknown outcome to fill it.
	b = newHBContract(forbidden)
	b.send(1, "A", "k1", 1)
	l := b.send(1, "A", "k3", 3)
	mustFail(t, b.check(t), NameGapless, l.ok)

	b = newHBContract(forbidden)
	b.send(1, "A", "k1", 1)
	b.invoke(2, "A", "k2")
	b.info(2, "A", "k2", "timeout")
	b.send(1, "A", "k3", 3)
	must(t, b.check(t), NameGapless, Pass)
}
