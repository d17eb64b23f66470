// Package memstore is the embedded Store: an in-process implementation of the
// same item semantics as DynamoDB (atomic ADD with a condition, conditional
// puts, transactions that cancel whole with a reason per item). It is the
// default store and the speed reference, and passes the same conformance
// suite as the DynamoDB store.
package memstore

import (
	"context"
	"fmt"
	"hash/maphash"
	"sync"
	"sync/atomic"

	"github.com/chatseq/chatseq/store"
)

// Store keeps every chat (one partition key across the four tables) behind
// a lock of its own; the index of chats is read without locking, so calls
// on different chats never contend.
type Store struct {
	chats   sync.Map // chat id -> *chat
	created atomic.Uint64
	seed    maphash.Seed // hashes idempotency keys
}

// chat is every item of one partition key across the four tables.
type chat struct {
	mu    sync.Mutex
	order uint64 // creation order: transactions lock chats in this order
	id    string

	counter       uint64
	counterExists bool
	members       map[string]struct{}
	messages      messageTable
	idempotency   idempotencyTable
}

// New returns an empty store.
func New() *Store { return &Store{seed: maphash.MakeSeed()} }

var _ store.Store = (*Store)(nil)

// partition returns the chat's partition, creating it empty on demand
// (absent items are still absent inside it).
func (s *Store) partition(chatID string) *chat {
	if c, ok := s.chats.Load(chatID); ok {
		return c.(*chat)
	}
	fresh := &chat{
		id:          chatID,
		members:     make(map[string]struct{}),
		idempotency: newIdempotencyTable(s.seed),
	}
	fresh.order = s.created.Add(1)
	c, _ := s.chats.LoadOrStore(chatID, fresh)
	return c.(*chat)
}

// lockChat locks the chat's partition and returns it.
func (s *Store) lockChat(chatID string) *chat {
	c := s.partition(chatID)
	c.mu.Lock()
	return c
}

// CreateChat puts the counter at 0 and the memberships atomically.
func (s *Store) CreateChat(ctx context.Context, chatID string, members []string) error {
	c := s.lockChat(chatID)
	defer c.mu.Unlock()
	if c.counterExists {
		return store.ErrChatExists
	}
	c.counter, c.counterExists = 0, true
	for _, m := range members {
		c.members[m] = struct{}{}
	}
	return nil
}

// GetIdempotency reads a key; the embedded store is always consistent.
func (s *Store) GetIdempotency(ctx context.Context, chatID, key string, consistent bool) (store.IdempotencyRecord, bool, error) {
	c := s.lockChat(chatID)
	r, ok := c.idempotency.get(chatID, key)
	c.mu.Unlock()
	return r, ok, nil
}

// IsMember reads a membership.
func (s *Store) IsMember(ctx context.Context, chatID, user string) (bool, error) {
	c := s.lockChat(chatID)
	_, ok := c.members[user]
	c.mu.Unlock()
	return ok, nil
}

// IncrementCounter is ADD sequence_counter 1 under attribute_exists.
func (s *Store) IncrementCounter(ctx context.Context, chatID string) (uint64, error) {
	c := s.lockChat(chatID)
	defer c.mu.Unlock()
	if !c.counterExists {
		return 0, store.ErrCounterMissing
	}
	c.counter++
	return c.counter, nil
}

// GetCounter reads the counter item.
func (s *Store) GetCounter(ctx context.Context, chatID string, consistent bool) (store.Counter, error) {
	c := s.lockChat(chatID)
	defer c.mu.Unlock()
	return store.Counter{Chat: chatID, Value: c.counter, Missing: !c.counterExists}, nil
}

// PutCounter writes the counter item, optionally only if absent.
func (s *Store) PutCounter(ctx context.Context, counter store.Counter, cond store.Condition) error {
	if cond == store.IfCounterEquals {
		return fmt.Errorf("memstore: PutCounter cannot take IfCounterEquals (no expected value): %w", errValidation)
	}
	c := s.lockChat(counter.Chat)
	defer c.mu.Unlock()
	if !counterConditionHolds(c, cond, 0) {
		return store.ErrConditionFailed
	}
	c.counter, c.counterExists = counter.Value, true
	return nil
}

// DeleteCounter removes the counter item.
func (s *Store) DeleteCounter(ctx context.Context, chatID string) error {
	c := s.lockChat(chatID)
	c.counter, c.counterExists = 0, false
	c.mu.Unlock()
	return nil
}

// QueryMessages returns the chat's messages with sequence > q.After.
func (s *Store) QueryMessages(ctx context.Context, q store.Query) ([]store.Message, error) {
	c := s.lockChat(q.Chat)
	defer c.mu.Unlock()
	// Sized at once: grown by doubling, a page of a thousand was twice its
	// size in garbage, most of what serve allocated reading a final state.
	var out []store.Message
	if q.Limit > 0 {
		out = make([]store.Message, 0, min(q.Limit, c.messages.n))
	}
	collect := func(m store.Message) bool {
		out = append(out, m)
		return q.Limit <= 0 || len(out) < q.Limit
	}
	if q.Descending {
		c.messages.descending(q.Chat, q.After, collect)
	} else {
		c.messages.ascending(q.Chat, q.After, collect)
	}
	return out, nil
}

// Dump copies the state of the given chats.
func (s *Store) Dump(ctx context.Context, chats []string) (store.State, error) {
	var st store.State
	err := s.Walk(ctx, chats, store.StateVisitor{
		Counter:     func(c store.Counter) { st.Counters = append(st.Counters, c) },
		Message:     func(m store.Message) { st.Messages = append(st.Messages, m) },
		Idempotency: func(r store.IdempotencyRecord) { st.Idempotency = append(st.Idempotency, r) },
		TablesRead:  func(t store.Tables) { st.Read = t },
	})
	return st, err
}

// Walk hands the state of the given chats to v: counters, then messages
// by chat and sequence, then idempotency records by chat in the order
// their keys were first written. Each chat is locked while it is read.
func (s *Store) Walk(ctx context.Context, chats []string, v store.StateVisitor) error {
	for _, id := range chats {
		c := s.lockChat(id)
		v.Counter(store.Counter{Chat: id, Value: c.counter, Missing: !c.counterExists})
		c.mu.Unlock()
	}
	for _, id := range chats {
		c := s.lockChat(id)
		c.messages.ascending(id, 0, func(m store.Message) bool {
			v.Message(m)
			return true
		})
		c.mu.Unlock()
	}
	for _, id := range chats {
		c := s.lockChat(id)
		c.idempotency.each(id, v.Idempotency)
		c.mu.Unlock()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	v.Read(store.AllTables)
	return nil
}

// Close does nothing: the store lives in memory.
func (s *Store) Close() error { return nil }
