package checker

import (
	"testing"

	"github.com/chatseq/chatseq/history"
)

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
	mustContain(t, mustNA(t, b.check(t), NameSequenceMonotonicity).Reason, "no final messages, idempotency records, acks, synced or pushed messages")

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

	// And at least every sequence pushed to a device: a push of a
	// sequence never allocated, in a history without the messages table,
	// passed every invariant (a red team's; with the table,
	// identical_order holds pushes to it).
	b = newHB()
	b.join("A", "u1")
	b.connect("d1", "u1")
	b.send(1, "A", "k1", 1)
	pushed := b.pushIDs("d1", "A", []uint64{1, 2}, []string{b.idAt("A", 1), "ghost"}, false)
	b.settled("d1")
	c = b.counter("A", 1)
	b.tableRead(history.TableCounters, 0)
	res = mustFail(t, b.check(t), NameSequenceMonotonicity, c, pushed)
	mustContain(t, res.Detail, "is below the seq 2 pushed to a device")
	// Under sole_writer no client wrote it either.
	res = mustFail(t, b.check(t), NameIdenticalOrder, pushed)
	mustContain(t, res.Detail, "no ack holds")
	b.h.Finals[0].Value = 2
	must(t, b.check(t), NameSequenceMonotonicity, Pass)
}
