package storetest

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/chatseq/chatseq/store"
)

func transactTests() []conformanceTest {
	return []conformanceTest{
		{"GetIdempotency/MissThenHit", testIdempotencyMissHit},
		{"TransactWrite/WritesEveryItem", testTransactWrites},
		{"TransactWrite/FailedIdempotencyConditionCancelsWholeTransaction", testTransactCancels},
		{"TransactWrite/UnconditionalPutsOverwrite", testTransactOverwrites},
		{"TransactWrite/IfAbsentOnExistingMessageAndCounter", testTransactIfAbsent},
		{"TransactWrite/IfCounterEqualsIsOptimisticAllocation", testTransactIfCounterEquals},
		{"TransactWrite/ConcurrentSameKeyHasOneWinner", testTransactSameKeyRace},
	}
}

// wantCanceled checks err is *store.TransactionCanceledError with exactly
// the reasons given, one per item in request order.
func (c *checker) wantCanceled(err error, want []string, what string) {
	c.Helper()
	var canceled *store.TransactionCanceledError
	if !errors.As(err, &canceled) {
		c.failf("%s: error = %v (%T), want *store.TransactionCanceledError with reasons %v", what, err, err, want)
		return
	}
	if !slices.Equal(canceled.Reasons, want) {
		c.failf("%s: cancellation reasons = %q, want %q (one per item, in order)", what, canceled.Reasons, want)
	}
}

// wantRecord checks (chat, key) holds want, with a consistent read.
func (c *checker) wantRecord(want store.IdempotencyRecord, when string) {
	c.Helper()
	got, ok, err := c.s.GetIdempotency(c.ctx, want.Chat, want.Key, true)
	c.must(err, "GetIdempotency")
	if !ok {
		c.failf("%s: GetIdempotency(%q, %q) found nothing, want the record for sequence %d", when, want.Chat, want.Key, want.Seq)
		return
	}
	if d := diffRecord(got, want); d != "" {
		c.failf("%s: GetIdempotency(%q, %q): %s", when, want.Chat, want.Key, d)
	}
}

// wantMessages checks the chat holds exactly want, in ascending order.
func (c *checker) wantMessages(chat string, want []store.Message, when string) {
	c.Helper()
	got, err := c.s.QueryMessages(c.ctx, store.Query{Chat: chat})
	c.must(err, "QueryMessages")
	if len(got) != len(want) {
		c.failf("%s: chat %q holds sequences %v, want %v", when, chat, seqs(got), seqs(want))
		return
	}
	for i := range want {
		if d := diffMessage(got[i], want[i]); d != "" {
			c.failf("%s: message %d of chat %q: %s", when, i, chat, d)
		}
	}
}

func testIdempotencyMissHit(c *checker) {
	chat := c.chat("a")
	for _, consistent := range []bool{true, false} {
		_, ok, err := c.s.GetIdempotency(c.ctx, chat, "k1", consistent)
		c.must(err, "GetIdempotency")
		if ok {
			c.failf("GetIdempotency(%q, k1, consistent=%v) before any write found a record", chat, consistent)
		}
	}
	c.must(c.s.TransactWrite(c.ctx, persistItems(chat, 1, "k1")), "TransactWrite")
	c.wantRecord(record(chat, 1, "k1"), "after persisting k1")
	// An eventually consistent read may miss a fresh write (step 4's
	// condition covers that), but what it returns must be the record.
	got, ok, err := c.s.GetIdempotency(c.ctx, chat, "k1", false)
	c.must(err, "GetIdempotency(consistent=false)")
	if ok {
		if d := diffRecord(got, record(chat, 1, "k1")); d != "" {
			c.failf("GetIdempotency(%q, k1, consistent=false): %s", chat, d)
		}
	}
	_, ok, err = c.s.GetIdempotency(c.ctx, chat, "k2", true)
	c.must(err, "GetIdempotency")
	if ok {
		c.failf("GetIdempotency(%q, k2) found a record; only k1 was written", chat)
	}
	_, ok, err = c.s.GetIdempotency(c.ctx, c.chat("b"), "k1", true)
	c.must(err, "GetIdempotency")
	if ok {
		c.failf("GetIdempotency(other chat, k1) found chat %q's record", chat)
	}
}

func testTransactWrites(c *checker) {
	chat := c.chat("a")
	c.must(c.s.TransactWrite(c.ctx, persistItems(chat, 1, "k1")), "TransactWrite")
	c.wantRecord(record(chat, 1, "k1"), "after TransactWrite")
	c.wantMessages(chat, []store.Message{message(chat, 1, "k1")}, "after TransactWrite")
}

// ADR-004 step 4's race: a second persist with the same key must cancel the
// whole transaction, name the failing item, and leave its message unwritten.
func testTransactCancels(c *checker) {
	chat := c.chat("a")
	c.must(c.s.TransactWrite(c.ctx, persistItems(chat, 1, "k1")), "first TransactWrite")

	err := c.s.TransactWrite(c.ctx, persistItems(chat, 2, "k1"))
	c.wantCanceled(err, []string{store.ReasonConditionalCheckFailed, store.ReasonNone},
		"[put idempotency k1 IfAbsent (exists), put message 2]")
	var canceled *store.TransactionCanceledError
	if errors.As(err, &canceled) && !canceled.ConditionFailedAt(0) {
		c.failf("ConditionFailedAt(0) = false for reasons %q", canceled.Reasons)
	}

	// The failing item last: reasons still line up with the items.
	rec, msg := record(chat, 3, "k1"), message(chat, 3, "k1")
	err = c.s.TransactWrite(c.ctx, []store.TxItem{{PutMessage: &msg}, {PutIdempotency: &rec, Condition: store.IfAbsent}})
	c.wantCanceled(err, []string{store.ReasonNone, store.ReasonConditionalCheckFailed},
		"[put message 3, put idempotency k1 IfAbsent (exists)]")

	c.wantMessages(chat, []store.Message{message(chat, 1, "k1")}, "after two canceled transactions")
	c.wantRecord(record(chat, 1, "k1"), "after two canceled transactions")
}

func testTransactOverwrites(c *checker) {
	chat := c.chat("a")
	c.must(c.s.TransactWrite(c.ctx, persistItems(chat, 1, "k1")), "first TransactWrite")
	// Same keys (chat, 1) and (chat, k1), other contents.
	msg := message(chat, 1, "k9")
	rec := record(chat, 9, "k1")
	c.must(c.s.TransactWrite(c.ctx, []store.TxItem{
		{PutIdempotency: &rec, Condition: store.Unconditional},
		{PutMessage: &msg, Condition: store.Unconditional},
	}), "unconditional TransactWrite over existing items")
	c.wantMessages(chat, []store.Message{msg}, "after an unconditional message put over sequence 1")
	c.wantRecord(rec, "after an unconditional idempotency put over k1")
}

func testTransactIfAbsent(c *checker) {
	chat := c.chat("a")
	c.must(c.s.CreateChat(c.ctx, chat, []string{"alice"}), "CreateChat")
	c.must(c.s.TransactWrite(c.ctx, persistItems(chat, 1, "k1")), "TransactWrite")

	msg := message(chat, 1, "k2")
	rec := record(chat, 1, "k2")
	err := c.s.TransactWrite(c.ctx, []store.TxItem{
		{PutIdempotency: &rec, Condition: store.IfAbsent},
		{PutMessage: &msg, Condition: store.IfAbsent},
	})
	c.wantCanceled(err, []string{store.ReasonNone, store.ReasonConditionalCheckFailed},
		"[put idempotency k2 IfAbsent (absent), put message 1 IfAbsent (exists)]")
	_, ok, gerr := c.s.GetIdempotency(c.ctx, chat, "k2", true)
	c.must(gerr, "GetIdempotency")
	if ok {
		c.failf("k2's idempotency record was written by a canceled transaction")
	}

	counter := store.Counter{Chat: chat, Value: 9}
	err = c.s.TransactWrite(c.ctx, []store.TxItem{{PutCounter: &counter, Condition: store.IfAbsent}})
	c.wantCanceled(err, []string{store.ReasonConditionalCheckFailed}, "[put counter IfAbsent (exists)]")
	c.wantCounter(chat, 0, false, "after a canceled IfAbsent counter put")
}

// ADR-004 Option B: read N, then in one transaction set the counter to N+1
// only if it is still N, together with the message at N+1.
func testTransactIfCounterEquals(c *checker) {
	chat := c.chat("a")
	c.must(c.s.CreateChat(c.ctx, chat, []string{"alice"}), "CreateChat")
	allocate := func(expected uint64, key string) error {
		next := store.Counter{Chat: chat, Value: expected + 1}
		items := append([]store.TxItem{{PutCounter: &next, Condition: store.IfCounterEquals, Expected: expected}},
			persistItems(chat, expected+1, key)...)
		return c.s.TransactWrite(c.ctx, items)
	}
	c.must(allocate(0, "k1"), "TransactWrite with counter = 0")
	c.wantCounter(chat, 1, false, "after an optimistic allocation from 0")

	err := allocate(0, "k2") // stale: the counter is 1 now
	c.wantCanceled(err, []string{store.ReasonConditionalCheckFailed, store.ReasonNone, store.ReasonNone},
		"[put counter if = 0 (is 1), put idempotency k2, put message 1]")
	c.wantCounter(chat, 1, false, "after a stale optimistic allocation")
	c.wantMessages(chat, []store.Message{message(chat, 1, "k1")}, "after a stale optimistic allocation")

	c.must(allocate(1, "k2"), "TransactWrite with counter = 1")
	c.wantCounter(chat, 2, false, "after a second optimistic allocation")

	// A missing counter has no value to equal.
	missing := c.chat("never-created")
	next := store.Counter{Chat: missing, Value: 1}
	err = c.s.TransactWrite(c.ctx, []store.TxItem{{PutCounter: &next, Condition: store.IfCounterEquals, Expected: 0}})
	c.wantCanceled(err, []string{store.ReasonConditionalCheckFailed}, "[put counter if = 0 (missing)]")
	c.wantCounter(missing, 0, true, "after an optimistic allocation on a missing counter")
}

// ADR-004 Scenario 4: concurrent persists of one key each with its own
// sequence; exactly one transaction wins and the others write nothing.
// Concurrent transactions on one item may also be canceled with
// TransactionConflict (DynamoDB does so); a client retries those.
func testTransactSameKeyRace(c *checker) {
	const writers = 6
	chat := c.chat("a")
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for attempt := 0; attempt < 50; attempt++ {
				errs[w] = c.s.TransactWrite(c.ctx, persistItems(chat, uint64(w+1), "same-key"))
				var canceled *store.TransactionCanceledError
				if !errors.As(errs[w], &canceled) || !slices.Contains(canceled.Reasons, store.ReasonTransactionConflict) {
					return
				}
			}
		}(w)
	}
	wg.Wait()
	winner := -1
	for w, err := range errs {
		if err == nil {
			if winner >= 0 {
				c.failf("writers %d and %d both persisted key same-key", winner, w)
			}
			winner = w
			continue
		}
		c.wantCanceled(err, []string{store.ReasonConditionalCheckFailed, store.ReasonNone}, fmt.Sprintf("losing writer %d", w))
	}
	if winner < 0 {
		c.fatalf("none of %d concurrent transactions on a fresh key succeeded: %v", writers, errs)
	}
	seq := uint64(winner + 1)
	c.wantMessages(chat, []store.Message{message(chat, seq, "same-key")}, "after the race")
	c.wantRecord(record(chat, seq, "same-key"), "after the race")
}
