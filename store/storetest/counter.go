package storetest

import (
	"errors"
	"sort"
	"sync"

	"github.com/chatseq/chatseq/store"
)

func counterTests() []conformanceTest {
	return []conformanceTest{
		{"GetCounter/AbsentIsMissing", testGetCounterAbsent},
		{"IncrementCounter/ReturnsConsecutiveValues", testIncrement},
		{"IncrementCounter/MissingCounterFailsAndIsNotCreated", testIncrementMissing},
		{"IncrementCounter/DeletedCounterFails", testIncrementDeleted},
		{"IncrementCounter/ConcurrentCallsGetDistinctConsecutiveValues", testIncrementConcurrent},
		{"PutCounter/UnconditionalCreatesAndOverwrites", testPutCounterUnconditional},
		{"PutCounter/IfAbsentIsTheRecoveryPut", testPutCounterIfAbsent},
		{"DeleteCounter/AbsentCounterIsNotAnError", testDeleteAbsent},
	}
}

// wantCounter checks the counter with a consistent read.
func (c *checker) wantCounter(chat string, value uint64, missing bool, when string) {
	c.Helper()
	got, err := c.s.GetCounter(c.ctx, chat, true)
	c.must(err, "GetCounter")
	want := store.Counter{Chat: chat, Value: value, Missing: missing}
	if missing {
		// The value of an absent item is meaningless; only Missing counts.
		got.Value = 0
	}
	if got != want {
		c.failf("%s: GetCounter(%q) = %+v, want %+v", when, chat, got, want)
	}
}

func testGetCounterAbsent(c *checker) {
	chat := c.chat("never-created")
	for _, consistent := range []bool{true, false} {
		got, err := c.s.GetCounter(c.ctx, chat, consistent)
		c.must(err, "GetCounter")
		if !got.Missing || got.Chat != chat {
			c.failf("GetCounter(%q, consistent=%v) on a chat never created = %+v, want Missing for that chat", chat, consistent, got)
		}
	}
}

func testIncrement(c *checker) {
	chat := c.chat("a")
	c.must(c.s.CreateChat(c.ctx, chat, []string{"alice"}), "CreateChat")
	for want := uint64(1); want <= 3; want++ {
		got, err := c.s.IncrementCounter(c.ctx, chat)
		if err != nil || got != want {
			c.fatalf("IncrementCounter(%q) call %d = %d, %v; want %d, nil", chat, want, got, err, want)
		}
	}
	c.wantCounter(chat, 3, false, "after 3 increments")
}

// ADD on an absent attribute would create it at 1; the attribute_exists
// condition must turn that into ErrCounterMissing and write nothing.
func testIncrementMissing(c *checker) {
	chat := c.chat("never-created")
	got, err := c.s.IncrementCounter(c.ctx, chat)
	if !errors.Is(err, store.ErrCounterMissing) {
		c.failf("IncrementCounter(%q) with no counter = %d, %v; want ErrCounterMissing", chat, got, err)
	}
	c.wantCounter(chat, 0, true, "after IncrementCounter on a missing counter")
}

func testIncrementDeleted(c *checker) {
	chat := c.chat("a")
	c.must(c.s.CreateChat(c.ctx, chat, []string{"alice"}), "CreateChat")
	_, err := c.s.IncrementCounter(c.ctx, chat)
	c.must(err, "IncrementCounter")
	c.must(c.s.DeleteCounter(c.ctx, chat), "DeleteCounter")
	c.wantCounter(chat, 0, true, "after DeleteCounter")
	got, err := c.s.IncrementCounter(c.ctx, chat)
	if !errors.Is(err, store.ErrCounterMissing) {
		c.failf("IncrementCounter(%q) after DeleteCounter = %d, %v; want ErrCounterMissing", chat, got, err)
	}
	c.wantCounter(chat, 0, true, "after IncrementCounter on a deleted counter")
}

// ADR-004 Appendix C add_operation_atomicity: concurrent increments never
// return the same value, and none is lost.
func testIncrementConcurrent(c *checker) {
	const workers, perWorker = 8, 25
	chat := c.chat("hot")
	c.must(c.s.CreateChat(c.ctx, chat, []string{"alice"}), "CreateChat")
	results := make([][]uint64, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < perWorker; i++ {
				v, err := c.s.IncrementCounter(c.ctx, chat)
				if err != nil {
					errs[w] = err
					return
				}
				results[w] = append(results[w], v)
			}
		}(w)
	}
	wg.Wait()
	for w, err := range errs {
		if err != nil {
			c.fatalf("concurrent IncrementCounter(%q), worker %d: %v", chat, w, err)
		}
	}
	var all []uint64
	for w, vs := range results {
		// One goroutine's calls are sequential, so its values must rise.
		for i := 1; i < len(vs); i++ {
			if vs[i] <= vs[i-1] {
				c.failf("worker %d got %d after %d from sequential IncrementCounter calls", w, vs[i], vs[i-1])
			}
		}
		all = append(all, vs...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	for i, v := range all {
		if v != uint64(i+1) {
			c.fatalf("%d concurrent increments returned %v..., want exactly 1..%d each once (first difference at position %d: %d)",
				len(all), all[:min(len(all), i+3)], workers*perWorker, i, v)
		}
	}
	c.wantCounter(chat, workers*perWorker, false, "after concurrent increments")
}

func testPutCounterUnconditional(c *checker) {
	chat := c.chat("a")
	c.must(c.s.PutCounter(c.ctx, store.Counter{Chat: chat, Value: 7}, store.Unconditional), "PutCounter on absent")
	c.wantCounter(chat, 7, false, "after an unconditional PutCounter on an absent counter")
	c.must(c.s.PutCounter(c.ctx, store.Counter{Chat: chat, Value: 2}, store.Unconditional), "PutCounter on existing")
	c.wantCounter(chat, 2, false, "after an unconditional PutCounter of a lower value")
	got, err := c.s.IncrementCounter(c.ctx, chat)
	if err != nil || got != 3 {
		c.failf("IncrementCounter after PutCounter(2) = %d, %v; want 3, nil", got, err)
	}
}

// The recovery procedure: recreate a deleted counter from the highest
// persisted sequence, never overwriting one that exists.
func testPutCounterIfAbsent(c *checker) {
	chat := c.chat("a")
	c.must(c.s.CreateChat(c.ctx, chat, []string{"alice"}), "CreateChat")
	for i := 0; i < 5; i++ {
		_, err := c.s.IncrementCounter(c.ctx, chat)
		c.must(err, "IncrementCounter")
	}
	err := c.s.PutCounter(c.ctx, store.Counter{Chat: chat, Value: 1}, store.IfAbsent)
	if !errors.Is(err, store.ErrConditionFailed) {
		c.failf("PutCounter(IfAbsent) on an existing counter: error = %v, want ErrConditionFailed", err)
	}
	c.wantCounter(chat, 5, false, "after a failed PutCounter(IfAbsent)")

	c.must(c.s.DeleteCounter(c.ctx, chat), "DeleteCounter")
	c.must(c.s.PutCounter(c.ctx, store.Counter{Chat: chat, Value: 4}, store.IfAbsent), "PutCounter(IfAbsent) on a deleted counter")
	c.wantCounter(chat, 4, false, "after the recovery put")
	got, err := c.s.IncrementCounter(c.ctx, chat)
	if err != nil || got != 5 {
		c.failf("IncrementCounter after recovery at 4 = %d, %v; want 5, nil", got, err)
	}
}

// DeleteItem of an absent item succeeds in DynamoDB; stores must agree.
func testDeleteAbsent(c *checker) {
	chat := c.chat("never-created")
	if err := c.s.DeleteCounter(c.ctx, chat); err != nil {
		c.failf("DeleteCounter(%q) on an absent counter: %v, want nil", chat, err)
	}
	c.wantCounter(chat, 0, true, "after DeleteCounter on an absent counter")
}
