package checker

import (
	"strings"
	"testing"
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
	t.Run("two counters lines that disagree", func(t *testing.T) {
		// Judged by the first line alone, a value followed by "missing",
		// or by a value below the messages, passed whatever the order
		// said (outside walk-through, 2026-12-06); no traces are needed.
		b := newHB()
		b.invoke(1, "A", "k1")
		b.ok(1, "A", "k1", 1, "m")
		first := b.counter("A", 1)
		missing := b.counterMissing("A")
		res := mustFail(t, b.check(t), NameCounterIsLastAllocated, first, missing)
		mustContain(t, res.Detail, `chat "A": the counters table holds two lines that disagree, value 1 (line 4) and missing (line 5)`)

		b = newHB()
		b.invoke(1, "A", "k1")
		b.ok(1, "A", "k1", 1, "m")
		first = b.counter("A", 1)
		lower := b.counter("A", 0)
		mustFail(t, b.check(t), NameCounterIsLastAllocated, first, lower)

		// Two equal lines are one value: a warning, no failure.
		b = newHB()
		b.send(1, "A", "k1", 1)
		b.counter("A", 1)
		b.counter("A", 1)
		rep := b.check(t)
		must(t, rep, NameCounterIsLastAllocated, Pass)
		mustContain(t, strings.Join(rep.Warnings, "\n"), `a second counters line for chat "A", the same as the first`)
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
