package drill

import (
	"context"
	"sync"

	"github.com/chatseq/chatseq/store"
)

// holdStore wraps the drill's store to make one persist a straggler: the
// first transaction that writes key waits inside TransactWrite until the
// drill releases it. Under two-phase the sequence is already allocated by
// then, so the persist is in flight across the counter's deletion exactly
// as a slow request (a GC pause, a retried network call) would be.
type holdStore struct {
	store.Store
	key string

	arrivedOnce sync.Once
	arrived     chan struct{} // closed when the held transaction arrives
	releaseOnce sync.Once
	released    chan struct{} // closed by release
}

func newHoldStore(st store.Store, key string) *holdStore {
	return &holdStore{Store: st, key: key, arrived: make(chan struct{}), released: make(chan struct{})}
}

// TransactWrite holds the straggler's transaction until release; every
// other transaction, and the straggler's after release, passes through.
func (h *holdStore) TransactWrite(ctx context.Context, items []store.TxItem) error {
	if h.writesKey(items) {
		h.arrivedOnce.Do(func() { close(h.arrived) })
		select {
		case <-h.released:
		case <-ctx.Done():
			return &store.UnknownOutcomeError{Code: "timeout", Err: ctx.Err()}
		}
	}
	return h.Store.TransactWrite(ctx, items)
}

func (h *holdStore) writesKey(items []store.TxItem) bool {
	for _, it := range items {
		if it.PutMessage != nil && it.PutMessage.Key == h.key {
			return true
		}
	}
	return false
}

// release lets the held transaction commit; safe to call more than once.
func (h *holdStore) release() { h.releaseOnce.Do(func() { close(h.released) }) }
