package checker

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history"
)

// A table whose table_read count the file does not hold was cut short: as
// in a file that lacks its promised end line, every invariant that reads
// final lines is unknown, never fail, and the detail says which table.
func TestTableCutShortIsUnknown(t *testing.T) {
	b := cutHistory(true) // the messages table holds 1 of its 3 lines
	b.h.Header.EndLine = false
	mustFail(t, b.check(t), NameAckImpliesPersistence, 12) // taken as complete, it fails
	read := b.tableRead(history.TableMessages, 2)
	r := b.check(t)
	for _, res := range r.Invariants {
		if res.Status == Fail {
			t.Errorf("%s failed on a table cut short: %s", res.Name, res.Detail)
		}
	}
	res := must(t, r, NameAckImpliesPersistence, Unknown)
	mustContain(t, res.Detail, "the final state was cut short (the table_read line")
	mustContain(t, res.Detail, "promises 3 final messages lines and the file holds 1)")
	if !strings.Contains(res.Detail, "line "+strconv.Itoa(read)) || r.ExitCode() != 3 {
		t.Fatalf("exit %d: %s", r.ExitCode(), res.Detail)
	}
}

// A table holding more lines than its table_read line promised is not the
// table that was read: unknown too, and not said to be cut short.
func TestTableHoldingMoreThanPromisedIsUnknown(t *testing.T) {
	b := cutHistory(true)
	b.h.Header.EndLine = false
	read := b.tableRead(history.TableMessages, 0)
	b.h.TablesRead[len(b.h.TablesRead)-1].Lines-- // promises one line fewer than it holds
	r := b.check(t)
	res := must(t, r, NameAckImpliesPersistence, Unknown)
	mustContain(t, res.Detail, "the final state does not match what was read (the table_read line "+strconv.Itoa(read))
	if r.ExitCode() != 3 {
		t.Fatalf("exit %d: %s", r.ExitCode(), res.Detail)
	}
}

// A messages table read back empty is present: every acknowledged message
// is lost, and ack_implies_persistence fails (issue 27: a service that
// answers 201 to every send and [] to every sync passed, n/a). Not read at
// all, it stays n/a.
func TestMessagesReadEmptyFailsAcks(t *testing.T) {
	build := func() *hb {
		b := newHB()
		b.invoke(1, "A", "k1")
		b.ok(1, "A", "k1", 1, "m-k1")
		b.invoke(1, "A", "k2")
		b.ok(1, "A", "k2", 2, "m-k2")
		return b
	}
	b := build()
	mustContain(t, mustNA(t, b.check(t), NameAckImpliesPersistence).Reason, "2 acks but no final messages lines")
	b = build()
	b.tableRead(history.TableMessages, 0)
	res := mustFail(t, b.check(t), NameAckImpliesPersistence, 3)
	mustContain(t, res.Detail, "2 violations")
	mustContain(t, res.Detail, "the final messages table was read and is empty")
	// Read with its messages, it passes.
	b = build()
	b.msg("A", 1, "m-k1", "k1")
	b.msg("A", 2, "m-k2", "k2")
	b.tableRead(history.TableMessages, 0)
	must(t, b.check(t), NameAckImpliesPersistence, Pass)
}

// Issue 26 case 6: an acknowledged (seq, message_id) stored under another
// key breaks ack_implies_persistence; under key_scope client so does one
// stored under the same key of another sender.
func TestAckStoredUnderAnotherKey(t *testing.T) {
	b := newHB()
	b.invoke(1, "A", "k1")
	ack := b.ok(1, "A", "k1", 1, "m1")
	moved := b.msg("A", 1, "m1", "k2")
	res := mustFail(t, b.check(t), NameAckImpliesPersistence, ack, moved)
	mustContain(t, res.Detail, `acknowledged as "m1" for key "k1" (line 3) but the final table holds it under key "k2" (line 4)`)

	// Keys that differ only in Unicode normalization are shown escaped:
	// quoted as they stand they read alike ("é" and "é").
	b = newHB()
	b.invoke(1, "A", "\u00e9")
	ack = b.ok(1, "A", "\u00e9", 1, "m1")
	moved = b.msg("A", 1, "m1", "e\u0301")
	res = mustFail(t, b.check(t), NameAckImpliesPersistence, ack, moved)
	mustContain(t, res.Detail, `for key "\u00e9" (line 3) but the final table holds it under key "e\u0301" (line 4)`)

	b = newHB()
	b.invoke(1, "A", "k1")
	b.ok(1, "A", "k1", 1, "m1")
	b.msg("A", 1, "m1", "k1")
	mustContain(t, must(t, b.check(t), NameAckImpliesPersistence, Pass).Detail, "with the acknowledged message_id and key")

	for _, tt := range []struct {
		sender string
		status Status
	}{{"u1", Pass}, {"u9", Fail}, {"", Pass}} {
		b = newHBContract(history.Contract{KeyScope: history.KeyScopeClient})
		b.invoke(1, "A", "k1") // sender u1
		b.ok(1, "A", "k1", 1, "m1")
		b.final(history.Final{Table: history.TableMessages, Chat: "A", Seq: 1, MessageID: "m1", Key: "k1", Sender: tt.sender})
		res := must(t, b.check(t), NameAckImpliesPersistence, tt.status)
		if tt.status == Fail {
			mustContain(t, res.Detail, `under key "k1" of another sender (key_scope client)`)
		}
	}

	// A final line without a key cannot be compared: it is not a failure.
	b = newHB()
	b.invoke(1, "A", "k1")
	b.ok(1, "A", "k1", 1, "m1")
	b.msg("A", 1, "m1", "")
	mustContain(t, must(t, b.check(t), NameAckImpliesPersistence, Pass).Detail, "1 ack: the persist or its final message carries no key")
}

// Issue 26 case 5: a fail took no effect, so a final message or
// idempotency record whose key only failed persists used breaks
// fail_has_no_effect, naming the fail and the final line.
func TestFailHasNoEffect(t *testing.T) {
	b := newHB()
	b.invoke(1, "A", "k0")
	failed := b.fail(1, "A", "k0", "crash_after_allocate")
	msg := b.msg("A", 1, "m1", "k0")
	res := mustFail(t, b.check(t), NameFailHasNoEffect, failed, msg)
	mustContain(t, res.Detail, `chat "A" key "k0": every persist of the key ended fail (e.g. crash_after_allocate at line 3), yet the final messages table holds it at seq 1 (line 4)`)

	// An idempotency record alone is an effect too.
	b = newHB()
	b.invoke(1, "A", "k0")
	failed = b.fail(1, "A", "k0", "not_a_member")
	b.tableRead(history.TableMessages, 0)
	idem := b.idem("A", "k0", 1, "m1")
	mustFail(t, b.check(t), NameFailHasNoEffect, failed, idem)

	// Kept: the failed key left nothing; another key's message is no
	// concern of it.
	b = newHB()
	b.invoke(1, "A", "k0")
	b.fail(1, "A", "k0", "crash_after_allocate")
	b.send(2, "A", "k1", 1)
	b.msg("A", 1, "m-k1", "k1")
	mustContain(t, must(t, b.check(t), NameFailHasNoEffect, Pass).Detail, "1 failed persist")

	// A key a fail and a persist of unknown outcome used: the info may
	// have written it.
	b = newHB()
	b.invoke(1, "A", "k0")
	b.fail(1, "A", "k0", "crash_after_allocate")
	b.invoke(1, "A", "k0")
	b.info(1, "A", "k0", "timeout")
	b.msg("A", 1, "m1", "k0")
	must(t, b.check(t), NameFailHasNoEffect, Pass)

	// A message from before the run (at or below initial_counter) is not
	// the fail's.
	b = newHB()
	b.h.Header.Extra = map[string]string{history.InitialCounterField: "5"}
	b.invoke(1, "A", "k0")
	b.fail(1, "A", "k0", "not_a_member")
	b.msg("A", 5, "m5", "k0")
	must(t, b.check(t), NameFailHasNoEffect, Pass)

	// n/a: no fails; no final state; only keyless final lines.
	b = newHB()
	b.send(1, "A", "k1", 1)
	b.msg("A", 1, "m-k1", "k1")
	mustContain(t, mustNA(t, b.check(t), NameFailHasNoEffect).Reason, "no persist ended fail")
	b = newHB()
	b.invoke(1, "A", "k0")
	b.fail(1, "A", "k0", "crash_after_allocate")
	mustContain(t, mustNA(t, b.check(t), NameFailHasNoEffect).Reason, "1 failed persist but no final messages or idempotency lines")
	b.msg("A", 1, "m1", "")
	mustContain(t, mustNA(t, b.check(t), NameFailHasNoEffect).Reason, "carries a key that can be attributed")
}

// Issue 26 case 7: with sole_writer, a final message above initial_counter
// whose key no persist of its chat used is a phantom write; without it, a
// warning. A key only failed persists used is case 5's, not a phantom's.
func TestNoPhantomMessages(t *testing.T) {
	build := func(sole string) (*hb, int) {
		b := newHB()
		b.h.Header.Extra = map[string]string{history.InitialCounterField: "2"}
		if sole != "" {
			b.h.Header.Extra[history.SoleWriterField] = sole
		}
		b.send(1, "A", "k1", 3)
		b.invoke(2, "A", "k0")
		b.fail(2, "A", "k0", "crash_after_allocate")
		b.msg("A", 1, "before-the-run", "old") // at or below initial_counter
		b.msg("A", 3, "m-k1", "k1")
		return b, b.msg("A", 4, "m-ghost", "ghost")
	}
	b, ghost := build("true")
	res := mustFail(t, b.check(t), NameNoPhantomMessages, ghost)
	mustContain(t, res.Detail, `chat "A" seq 4: the final message "m-ghost" (line 9) carries key "ghost", which no persist of the chat sent`)

	b, _ = build("")
	r := b.check(t)
	mustContain(t, mustNA(t, r, NameNoPhantomMessages).Reason, "the history does not say its clients are its chats' only writers")
	if !slices.ContainsFunc(r.Warnings, func(w string) bool {
		return strings.Contains(w, `1 final line (messages or idempotency records) above initial_counter carry a key no persist of their chat sent, e.g. chat "A" seq 4, key "ghost" (messages line 9)`)
	}) {
		t.Fatalf("no warning about the phantom: %q", r.Warnings)
	}
	// check --sole-writer states it; --sole-writer=false takes it back.
	yes, no := true, false
	mustFail(t, Check(&b.h, Options{SoleWriter: &yes}), NameNoPhantomMessages, ghost)
	b, _ = build("true")
	mustNA(t, Check(&b.h, Options{SoleWriter: &no}), NameNoPhantomMessages)

	// Without the ghost: the failed key's message is fail_has_no_effect's,
	// never a phantom.
	b, _ = build("true")
	b.h.Finals = b.h.Finals[:2]
	b.msg("A", 4, "m-k0", "k0")
	r = b.check(t)
	must(t, r, NameNoPhantomMessages, Pass)
	must(t, r, NameFailHasNoEffect, Fail)

	// Under key_scope client a key is its sender's: a message of the key
	// under a sender that never sent it is a phantom.
	b = newHBContract(history.Contract{KeyScope: history.KeyScopeClient})
	b.h.Header.Extra = map[string]string{history.SoleWriterField: "true"}
	b.send(1, "A", "k1", 1) // sender u1
	b.final(history.Final{Table: history.TableMessages, Chat: "A", Seq: 1, MessageID: "m-k1", Key: "k1", Sender: "u1"})
	must(t, b.check(t), NameNoPhantomMessages, Pass)
	other := b.final(history.Final{Table: history.TableMessages, Chat: "A", Seq: 2, MessageID: "m2", Key: "k1", Sender: "u7"})
	mustFail(t, b.check(t), NameNoPhantomMessages, other)
	// A line without a sender whose key no sender of the chat used is no
	// client's either, though it cannot be attributed.
	b.h.Finals = b.h.Finals[:1]
	unsent := b.final(history.Final{Table: history.TableMessages, Chat: "A", Seq: 3, MessageID: "m3", Key: "k-nobody"})
	res = mustFail(t, b.check(t), NameNoPhantomMessages, unsent)
	mustContain(t, res.Detail, "a key, without a sender, that no sender of the chat used")
}

// issue 26 case 4 and issue 27: the counter only grows from
// initial_counter, under every contract. A new message, an allocation or
// a final counter at or below it fails; a replay answering a sequence at
// or below it may be a key from before the run.
func TestNothingNewAtOrBelowTheInitialCounter(t *testing.T) {
	for _, gaps := range []string{history.GapsAllowed, history.GapsForbidden} {
		newAt := func() *hb {
			b := newHBContract(history.Contract{Gaps: gaps})
			b.h.Header.Extra = map[string]string{history.InitialCounterField: "5"}
			return b
		}
		b := newAt()
		b.invoke(1, "A", "k1")
		ack := b.ok(1, "A", "k1", 3, "m3")
		res := mustFail(t, b.check(t), NameSequenceMonotonic, ack)
		mustContain(t, res.Detail, "acked seq 3 as a new message (line 3), not above initial_counter 5")

		// A replay of a key from before the run answers its old
		// sequence: not a new message.
		b = newAt()
		b.send(1, "A", "k1", 6)
		b.invoke(2, "A", "old-key")
		b.dedup(2, "A", "old-key", 3, "m3")
		mustContain(t, must(t, b.check(t), NameSequenceMonotonic, Pass).Detail, "1 persist acked as new")
	}

	// Issue 27: a counter that stood at 10, an allocation of 1, a final
	// counter of 1.
	b := newHB()
	b.h.Header.Extra = map[string]string{history.InitialCounterField: "10"}
	b.invoke(1, "A", "k1")
	alloc := b.alloc(1, "A", 1)
	b.ok(1, "A", "k1", 1, "m1")
	counter := b.counter("A", 1)
	b.msg("A", 1, "m1", "k1")
	r := b.check(t)
	mustContain(t, must(t, r, NameAllocationMonotonicity, Fail).Detail, "an allocation returned 1 (line 3), not above initial_counter 10")
	if res, _ := r.Result(NameAllocationMonotonicity); !slices.Equal(res.Lines, []int{alloc}) {
		t.Fatalf("allocation_monotonicity lines %v, want [%d]", res.Lines, alloc)
	}
	res := must(t, r, NameCounterIsLastAllocated, Fail)
	mustContain(t, res.Detail, "final counter is 1 (line 5), below initial_counter 10")
	must(t, r, NameSequenceMonotonicity, Fail)
	if !slices.Equal(res.Lines, []int{counter}) {
		t.Fatalf("counter_is_last_allocated lines %v", res.Lines)
	}

	// Without traces the counter below initial_counter still fails.
	b = newHB()
	b.h.Header.Extra = map[string]string{history.InitialCounterField: "10"}
	b.counter("A", 4)
	r = b.check(t)
	mustFail(t, r, NameCounterIsLastAllocated, 2)

	// Kept: allocations and new messages above it, a counter at it.
	b = newHB()
	b.h.Header.Extra = map[string]string{history.InitialCounterField: "10"}
	b.send(1, "A", "k1", 11)
	b.dump(false)
	b.counter("B", 10)
	mustAllPass(t, b.check(t))
}
