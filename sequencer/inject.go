package sequencer

import (
	"context"

	"github.com/chatseq/chatseq/store"
)

// faultingStore fails one call of a persist with the error its plan's
// StoreFault names, as DynamoDB would return it, and passes every other
// call through: the core classifies the error as it would a real one.
// An internal error on a write that the plan says was applied applies the
// write first; an applied counter ADD is traced, since it handed out a
// sequence (a gap) that only the fault injector knows of.
type faultingStore struct {
	store.Store
	fault StoreFault
	fired bool
	tr    Tracer
}

// strike reports whether this call fails: the plan's call kind, once.
func (s *faultingStore) strike(call StoreCall) bool {
	if s.fired || s.fault.Call != call {
		return false
	}
	s.fired = true
	return true
}

// readError is the error a read call fails with.
func (s *faultingStore) readError(op string) error {
	if s.fault.Kind == StoreThrottled {
		return store.Throttled(op)
	}
	return store.InternalError(op)
}

func (s *faultingStore) GetIdempotency(ctx context.Context, chat, key string, consistent bool) (store.IdempotencyRecord, bool, error) {
	if s.fault.Kind != TxnCanceledOther && s.strike(CallLookup) {
		return store.IdempotencyRecord{}, false, s.readError("GetItem idempotency_keys")
	}
	return s.Store.GetIdempotency(ctx, chat, key, consistent)
}

func (s *faultingStore) IsMember(ctx context.Context, chat, user string) (bool, error) {
	if s.fault.Kind != TxnCanceledOther && s.strike(CallMembership) {
		return false, s.readError("GetItem chat_memberships")
	}
	return s.Store.IsMember(ctx, chat, user)
}

// GetCounter is the allocation's read under occ and racy-counter.
func (s *faultingStore) GetCounter(ctx context.Context, chat string, consistent bool) (store.Counter, error) {
	if s.fault.Kind != TxnCanceledOther && s.strike(CallAllocate) {
		return store.Counter{}, s.readError("GetItem chat_counters")
	}
	return s.Store.GetCounter(ctx, chat, consistent)
}

func (s *faultingStore) IncrementCounter(ctx context.Context, chat string) (uint64, error) {
	if s.fault.Kind == TxnCanceledOther || !s.strike(CallAllocate) {
		return s.Store.IncrementCounter(ctx, chat)
	}
	const op = "UpdateItem chat_counters ADD"
	if s.fault.Kind == StoreThrottled {
		return 0, store.Throttled(op)
	}
	if s.fault.Applied {
		start := s.tr.Now()
		seq, err := s.Store.IncrementCounter(ctx, chat)
		if err != nil {
			return 0, err // it failed for real (a missing counter): nothing applied
		}
		s.tr.Allocated(chat, seq, start, s.tr.Now())
	}
	return 0, store.InternalError(op)
}

func (s *faultingStore) TransactWrite(ctx context.Context, items []store.TxItem) error {
	if !s.strike(CallTransact) {
		return s.Store.TransactWrite(ctx, items)
	}
	const op = "TransactWriteItems"
	switch s.fault.Kind {
	case StoreThrottled:
		return store.Throttled(op)
	case TxnCanceledOther:
		return store.CanceledOther(len(items))
	}
	if s.fault.Applied {
		// Applied or refused on its own conditions: either way the 500
		// hides which. Under occ the transaction sets the counter: a
		// commit is an allocation.
		start := s.tr.Now()
		if s.Store.TransactWrite(ctx, items) == nil {
			for _, it := range items {
				if it.PutCounter != nil {
					s.tr.Allocated(it.PutCounter.Chat, it.PutCounter.Value, start, s.tr.Now())
				}
			}
		}
	}
	return store.InternalError(op)
}
