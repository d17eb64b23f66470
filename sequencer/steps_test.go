package sequencer

import (
	"context"
	"testing"

	"github.com/chatseq/chatseq/store"
	"github.com/chatseq/chatseq/store/memstore"
)

// Outcome.Steps is what ADR-004 §12's metrics count: step 1 hits, step 3
// failures, step 4 transactions and their condition failures, commits.
func TestOutcomeStepsSayWhatEachStepMet(t *testing.T) {
	f := newFixture(t, Config{})
	f.chatAt(0)

	first, err := f.persist("k1", FaultPlan{})
	if err != nil {
		t.Fatal(err)
	}
	if want := (StepEvents{Transactions: 1, Committed: true}); first.Steps != want {
		t.Errorf("a new message: steps %+v, want %+v", first.Steps, want)
	}
	retry, err := f.persist("k1", FaultPlan{})
	if err != nil {
		t.Fatal(err)
	}
	if want := (StepEvents{IdempotencyHit: true}); retry.Steps != want {
		t.Errorf("a retry answered at step 1: steps %+v, want %+v", retry.Steps, want)
	}
	// A stale step 1 misses the record: step 4's condition answers.
	stale, err := f.persist("k1", FaultPlan{StaleIdempotencyRead: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := (StepEvents{Transactions: 1, Conflicts: 1}); stale.Steps != want || stale.Allocated == 0 {
		t.Errorf("a stale read lost at step 4: steps %+v (allocated %d), want %+v and an allocation", stale.Steps, stale.Allocated, want)
	}
	crashed, _ := f.persist("k2", FaultPlan{CrashAfterAllocate: true})
	if want := (StepEvents{}); crashed.Steps != want || crashed.Allocated == 0 {
		t.Errorf("a crash after allocating: steps %+v (allocated %d), want none and an allocation", crashed.Steps, crashed.Allocated)
	}
	landed, _ := f.persist("k3", FaultPlan{CrashInPersist: true, CrashInPersistCommitted: true})
	if want := (StepEvents{Transactions: 1, Committed: true}); landed.Steps != want {
		t.Errorf("a crash whose commit landed: steps %+v, want %+v", landed.Steps, want)
	}

	if err := f.store.DeleteCounter(f.ctx, "A"); err != nil {
		t.Fatal(err)
	}
	missing, err := f.persist("k4", FaultPlan{})
	if AsError(err).Code != CodeCounterMissing {
		t.Fatalf("after the deletion: %v, want counter_missing", err)
	}
	if want := (StepEvents{AllocateFailed: true}); missing.Steps != want {
		t.Errorf("counter missing: steps %+v, want %+v", missing.Steps, want)
	}
}

// Under occ every round is a transaction, and a round lost to another
// writer a conflict.
func TestOutcomeStepsCountOptimisticRounds(t *testing.T) {
	st := &interferingStore{Store: memstore.New(), chat: "A"}
	f := newFixture(t, Config{Strategy: Optimistic, Store: st})
	f.chatAt(0)
	st.once = true
	out, err := f.persist("k1", FaultPlan{})
	if err != nil {
		t.Fatal(err)
	}
	if want := (StepEvents{Transactions: 2, Conflicts: 1, Committed: true}); out.Steps != want {
		t.Errorf("occ with one round lost: steps %+v, want %+v", out.Steps, want)
	}
}

// interferingStore moves the chat's counter just before the next
// transaction, as a concurrent writer would, once.
type interferingStore struct {
	store.Store
	chat string
	once bool
}

func (s *interferingStore) TransactWrite(ctx context.Context, items []store.TxItem) error {
	if s.once {
		s.once = false
		if _, err := s.Store.IncrementCounter(ctx, s.chat); err != nil {
			return err
		}
	}
	return s.Store.TransactWrite(ctx, items)
}
