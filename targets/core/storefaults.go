package core

import (
	"context"
	"hash/fnv"
	"slices"
	"time"

	"github.com/chatseq/chatseq/store"
	"github.com/chatseq/chatseq/target"
)

// storeWindows wraps st so calls inside the run's store latency and stall
// windows are delayed, and calls inside its store error windows fail.
func storeWindows(env target.Env, st store.Store) store.Store {
	var windows []target.TimedFault
	for _, f := range env.Timed {
		if slices.Contains(storeWindowKinds, f.Kind) {
			windows = append(windows, f)
		}
	}
	if len(windows) == 0 {
		return st
	}
	return &slowStore{Store: st, elapsed: env.Elapsed, windows: windows}
}

// slowStore delays store calls inside latency and stall windows and fails
// them inside store error windows.
type slowStore struct {
	store.Store
	elapsed func() time.Duration
	windows []target.TimedFault
}

// storeWindowKinds are the timed faults slowStore applies.
var storeWindowKinds = []string{target.StoreLatency, target.StoreStall, target.StoreThrottle, target.StoreInternalError, target.TxnCanceledOther}

// enter applies the window the run is in to one call: it waits out a
// latency or a stall, or returns the store error window's kind.
func (s *slowStore) enter(ctx context.Context) (errKind string) {
	el := s.elapsed()
	for _, w := range s.windows {
		if !w.Active(el) {
			continue
		}
		if target.IsStoreError(w.Kind) {
			return w.Kind
		}
		d := w.Latency
		if w.Kind == target.StoreStall {
			d = w.At + w.For - el
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
		return ""
	}
	return ""
}

// failCall is the error a call op fails with in a store error window of
// kind, nil when kind does not touch it (a cancelled transaction is only
// ever a transaction).
func failCall(kind, op string) error {
	switch kind {
	case target.StoreThrottle:
		return store.Throttled(op)
	case target.StoreInternalError:
		return store.InternalError(op)
	}
	return nil
}

func (s *slowStore) GetIdempotency(ctx context.Context, chat, key string, consistent bool) (store.IdempotencyRecord, bool, error) {
	if err := failCall(s.enter(ctx), "GetItem idempotency_keys"); err != nil {
		return store.IdempotencyRecord{}, false, err
	}
	return s.Store.GetIdempotency(ctx, chat, key, consistent)
}

func (s *slowStore) IsMember(ctx context.Context, chat, user string) (bool, error) {
	if err := failCall(s.enter(ctx), "GetItem chat_memberships"); err != nil {
		return false, err
	}
	return s.Store.IsMember(ctx, chat, user)
}

// IncrementCounter fails before applying in an internal error window: the
// client still cannot know, and no sequence is handed out that the
// history could not trace.
func (s *slowStore) IncrementCounter(ctx context.Context, chat string) (uint64, error) {
	if err := failCall(s.enter(ctx), "UpdateItem chat_counters ADD"); err != nil {
		return 0, err
	}
	return s.Store.IncrementCounter(ctx, chat)
}

func (s *slowStore) GetCounter(ctx context.Context, chat string, consistent bool) (store.Counter, error) {
	if err := failCall(s.enter(ctx), "GetItem chat_counters"); err != nil {
		return store.Counter{}, err
	}
	return s.Store.GetCounter(ctx, chat, consistent)
}

func (s *slowStore) PutCounter(ctx context.Context, c store.Counter, cond store.Condition) error {
	if err := failCall(s.enter(ctx), "PutItem chat_counters"); err != nil {
		return err
	}
	return s.Store.PutCounter(ctx, c, cond)
}

// TransactWrite in an internal error window is applied first when the
// write's coin says so; occ's transactions, which allocate, never are
// (their allocation could not be traced).
func (s *slowStore) TransactWrite(ctx context.Context, items []store.TxItem) error {
	switch kind := s.enter(ctx); kind {
	case target.TxnCanceledOther:
		return store.CanceledOther(len(items))
	case target.StoreInternalError:
		if appliedCoin(items) {
			_ = s.Store.TransactWrite(ctx, items)
		}
		return failCall(kind, "TransactWriteItems")
	case target.StoreThrottle:
		return failCall(kind, "TransactWriteItems")
	}
	return s.Store.TransactWrite(ctx, items)
}

func (s *slowStore) QueryMessages(ctx context.Context, q store.Query) ([]store.Message, error) {
	if err := failCall(s.enter(ctx), "Query messages"); err != nil {
		return nil, err
	}
	return s.Store.QueryMessages(ctx, q)
}

// appliedCoin is a fair coin fixed by a persist's transaction (its key and
// sequence), so a rerun decides alike; false for a transaction that sets
// the counter.
func appliedCoin(items []store.TxItem) bool {
	h := uint64(14695981039346656037)
	for _, it := range items {
		switch {
		case it.PutCounter != nil:
			return false
		case it.PutIdempotency != nil:
			h = fnv1a(it.PutIdempotency.Chat+"/"+it.PutIdempotency.Key) ^ it.PutIdempotency.Seq
		}
	}
	return h%2 == 0
}

// fnv1a is the 64-bit FNV-1a hash of s.
func fnv1a(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}
