package checker

import (
	"testing"

	"github.com/chatseq/chatseq/history"
)

// The final tables as the state after the run, where the independent
// oracle (checker/oracle) and the checker once read them apart: each
// history that breaks a rule beside its twin that keeps it.

// With sole_writer, an idempotency record above initial_counter whose key
// no persist of its chat used is a phantom, as a message is: the record
// is written with its message, in one transaction (oracle D1).
func TestPhantomIdempotencyRecord(t *testing.T) {
	build := func(key string) (*hb, int) {
		b := newHB()
		b.h.Header.Extra = map[string]string{history.SoleWriterField: "true"}
		b.invoke(1, "A", "k1")
		b.info(1, "A", "k1", "timeout")
		rec := b.idem("A", key, 1, "m1")
		b.tableRead(history.TableIdempotency, 0)
		return b, rec
	}
	b, _ := build("k1")
	must(t, b.check(t), NameNoPhantomMessages, Pass)
	b, rec := build("ghost")
	res := mustFail(t, b.check(t), NameNoPhantomMessages, rec)
	mustContain(t, res.Detail, `the final idempotency record of message "m1" (line 4) carries key "ghost", which no persist of the chat sent`)
}

// A counters table read (table_read) that holds no line for a chat of the
// history has lost that chat's counter: counter_is_last_allocated fails as
// for "missing": true, never unknown (oracle D7). Without the table_read
// line (a file written before it), nothing says the table was read whole.
func TestCountersReadWithoutAChatsLine(t *testing.T) {
	build := func(withLine, read bool) (*hb, int) {
		b := newHB()
		b.invoke(1, "A", "k1")
		b.ok(1, "A", "k1", 1, "m1")
		b.invoke(2, "B", "k2")
		b.ok(2, "B", "k2", 1, "m2")
		b.counter("A", 1)
		if withLine {
			b.counter("B", 1)
		}
		line := 0
		if read {
			line = b.tableRead(history.TableCounters, 0)
		}
		return b, line
	}
	b, _ := build(true, true)
	mustAllPass(t, b.check(t))
	b, read := build(false, true)
	r := b.check(t)
	res := mustFail(t, r, NameCounterIsLastAllocated, read)
	mustContain(t, res.Detail, `chat "B": counter missing: the counters table was read (line 7) and holds no line for it`)
	mustContain(t, must(t, r, NameSequenceMonotonicity, Unknown).Detail, `counter missing (the counters table was read and holds no line for it): ["B"]`)
	b, _ = build(false, false)
	mustContain(t, must(t, b.check(t), NameSequenceMonotonicity, Unknown).Detail, `no final counters line: ["B"]`)
}

// With the idempotency table read, even empty, an acknowledged key without
// its record fails idempotency_sequence_consistency: the ack shows the
// record existed during the run (a replay of a key from before the run as
// well), and records are not deleted (oracle D16). So does a record that
// names another message than the ack.
func TestAckWithoutItsIdempotencyRecord(t *testing.T) {
	type tc struct {
		name   string
		record bool
		build  func(b *hb) (ackLines []int)
	}
	for _, c := range []tc{
		{"new message", false, func(b *hb) []int {
			i := b.invoke(1, "A", "k1")
			return []int{i, b.ok(1, "A", "k1", 1, "m1")}
		}},
		{"replay of a key from before the run", false, func(b *hb) []int {
			b.h.Header.Extra = map[string]string{history.InitialCounterField: "1"}
			i := b.invoke(1, "A", "k1")
			return []int{i, b.dedup(1, "A", "k1", 1, "m1")}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := newHB()
			ack := c.build(b)
			b.idem("A", "k1", 1, "m1")
			b.tableRead(history.TableIdempotency, 0)
			must(t, b.check(t), NameIdempotencySeqConsist, Pass)

			b = newHB()
			ack = c.build(b)
			b.tableRead(history.TableIdempotency, 0)
			res := mustFail(t, b.check(t), NameIdempotencySeqConsist, ack...)
			mustContain(t, res.Detail, `key "k1" was acknowledged as seq 1 "m1" (line 3) but the final idempotency table holds no record of the key (the final idempotency table was read and is empty)`)

			b = newHB()
			ack = c.build(b)
			rec := b.idem("A", "k1", 2, "m2")
			b.tableRead(history.TableIdempotency, 0)
			res = mustFail(t, b.check(t), NameIdempotencySeqConsist, append(ack, rec)...)
			mustContain(t, res.Detail, `but its idempotency record says seq 2 "m2" (line 4)`)
		})
	}
	// Not read, the table says nothing.
	b := newHB()
	b.invoke(1, "A", "k1")
	b.ok(1, "A", "k1", 1, "m1")
	mustNA(t, b.check(t), NameIdempotencySeqConsist)
}

// A record without its message, the messages table read and empty, and a
// message without its record, the idempotency table read and empty, fail
// (oracle D16).
func TestRecordsAndMessagesReadEmpty(t *testing.T) {
	b := newHB()
	b.tableRead(history.TableMessages, 0)
	rec := b.idem("A", "k4", 4, "m4")
	b.tableRead(history.TableIdempotency, 0)
	res := mustFail(t, b.check(t), NameIdempotencySeqConsist, rec)
	mustContain(t, res.Detail, "no message carries the key (the final messages table was read and is empty)")
	b = newHB()
	msg := b.msg("A", 9, "m2", "f2")
	b.tableRead(history.TableMessages, 0)
	b.tableRead(history.TableIdempotency, 0)
	res = mustFail(t, b.check(t), NameIdempotencySeqConsist, msg)
	mustContain(t, res.Detail, "has no idempotency record (the final idempotency table was read and is empty)")
	b = newHB()
	b.msg("A", 9, "m2", "f2")
	b.tableRead(history.TableMessages, 0)
	b.idem("A", "f2", 9, "m2")
	b.tableRead(history.TableIdempotency, 0)
	must(t, b.check(t), NameIdempotencySeqConsist, Pass)
}

// Two idempotency records of two keys at one (chat, seq) fail: one message
// has one key. One record per key and sequence passes.
func TestTwoRecordsAtOneSequence(t *testing.T) {
	build := func(second string) (*hb, int, int) {
		b := newHB()
		b.h.Header.Extra = nil // no sole_writer: the records may be another writer's
		a := b.idem("A", "k1", 4, "m1")
		c := b.idem("A", second, 5, "m2")
		b.tableRead(history.TableIdempotency, 0)
		return b, a, c
	}
	b, _, _ := build("kx0")
	must(t, b.check(t), NameIdempotencySeqConsist, Pass)
	b, a, c := build("kx0")
	b.h.Finals[1].Seq, b.h.Finals[1].MessageID = 4, "m1"
	res := mustFail(t, b.check(t), NameIdempotencySeqConsist, a, c)
	mustContain(t, res.Detail, `chat "A" seq 4 has two idempotency records, of keys "k1" (line 2) and "kx0" (line 3): one message has one key`)
	// One message id at two sequences.
	b, a, c = build("kx0")
	b.h.Finals[1].MessageID = "m1"
	res = mustFail(t, b.check(t), NameIdempotencySeqConsist, a, c)
	mustContain(t, res.Detail, `the idempotency records at lines 2 and 3 name message "m1" at two sequences, 4 and 5`)
}

// A message a sync returned may lack its record (records expire: the
// idempotency table is not the list of messages), but a record at its
// sequence names it: a record is its message's, whoever wrote it.
func TestSyncedMessageAgainstItsRecord(t *testing.T) {
	build := func(rec bool) (*hb, []int) {
		b := newHB()
		b.h.Header.Extra = nil // another writer's message
		i := b.syncInvoke(1, "A", 0, 0)
		d := b.syncOKIDs(1, "A", []uint64{1}, []string{"m2"})
		if rec {
			b.idem("A", "f1", 1, "m2")
		}
		b.tableRead(history.TableIdempotency, 0)
		return b, []int{i, d}
	}
	b, _ := build(true)
	must(t, b.check(t), NameIdempotencySeqConsist, Pass)
	b, _ = build(false)
	must(t, b.check(t), NameIdempotencySeqConsist, Pass)
	b, lines := build(true)
	b.h.Finals[0].MessageID = "m9"
	res := mustFail(t, b.check(t), NameIdempotencySeqConsist, append(lines, 4)...)
	mustContain(t, res.Detail, `returned seq 1 as another message than its idempotency record names, "m9" (line 4)`)
}

// Under key_reuse return-original the contract has no rejection: a persist
// that failed with idempotency_key_reused took no effect like any fail, and
// a record of its key is that effect. Under reject the rejection blames no
// effect on itself (the key is held by other content): not judged here.
func TestReusedKeyErrorUnderReturnOriginal(t *testing.T) {
	build := func(reuse string) (*hb, []int) {
		b := newHBContract(history.Contract{KeyReuse: reuse})
		b.invoke(2, "A", "k2")
		f := b.fail(2, "A", "k2", "idempotency_key_reused")
		rec := b.idem("A", "k2", 2, "m1")
		b.tableRead(history.TableIdempotency, 0)
		return b, []int{f, rec}
	}
	b, lines := build(history.KeyReuseReturnOriginal)
	res := mustFail(t, b.check(t), NameFailHasNoEffect, lines...)
	mustContain(t, res.Detail, `every persist of the key ended fail (e.g. idempotency_key_reused at line 3), yet the final idempotency table holds it at seq 2 (line 4)`)
	b, _ = build(history.KeyReuseReject)
	mustNA(t, b.check(t), NameFailHasNoEffect)
}

// A message id at two sequences of one chat fails sequence_uniqueness
// whatever another chat does with the same id: a history that fails keeps
// failing beside one that passes (issue 26 case 3's lesson), though ids
// are numbered across chats.
func TestIDAtTwoSequencesBesideAnotherChat(t *testing.T) {
	build := func(other bool) (*hb, []int) {
		b := newHB()
		if other {
			b.invoke(1, "B", "k1")
			b.ok(1, "B", "k1", 1, "m1")
		}
		b.invoke(2, "A", "k2")
		first := b.ok(2, "A", "k2", 1, "m1")
		b.invoke(2, "A", "k1")
		second := b.ok(2, "A", "k1", 2, "m1")
		return b, []int{first, second}
	}
	for _, other := range []bool{false, true} {
		b, lines := build(other)
		res := mustFail(t, b.check(t), NameSequenceUniqueness, lines...)
		mustContain(t, res.Detail, `chat "A" message id "m1" names two sequences: 1`)
	}
}
