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
	"sort"
	"sync"

	"github.com/chatseq/chatseq/store"
)

const shardCount = 64

// Store keeps every chat in one of shardCount shards, so writers on different
// chats rarely contend on a lock.
type Store struct {
	seed   maphash.Seed
	shards [shardCount]shard
}

type shard struct {
	mu    sync.Mutex
	chats map[string]*chat
}

// chat is every item of one partition key across the four tables.
type chat struct {
	counter       uint64
	counterExists bool
	members       map[string]struct{}
	messages      messageTable
	idempotency   map[string]store.IdempotencyRecord
}

// New returns an empty store.
func New() *Store {
	s := &Store{seed: maphash.MakeSeed()}
	for i := range s.shards {
		s.shards[i].chats = make(map[string]*chat)
	}
	return s
}

var _ store.Store = (*Store)(nil)

func (s *Store) shardIndex(chatID string) int {
	return int(maphash.String(s.seed, chatID) % shardCount)
}

// lockChat locks the chat's shard and returns the chat, creating its empty
// partition on demand (absent items are still absent inside it).
func (s *Store) lockChat(chatID string) (*shard, *chat) {
	sh := &s.shards[s.shardIndex(chatID)]
	sh.mu.Lock()
	return sh, sh.chatLocked(chatID)
}

func (sh *shard) chatLocked(chatID string) *chat {
	c := sh.chats[chatID]
	if c == nil {
		c = &chat{
			members:     make(map[string]struct{}),
			idempotency: make(map[string]store.IdempotencyRecord),
		}
		sh.chats[chatID] = c
	}
	return c
}

// CreateChat puts the counter at 0 and the memberships atomically.
func (s *Store) CreateChat(ctx context.Context, chatID string, members []string) error {
	sh, c := s.lockChat(chatID)
	defer sh.mu.Unlock()
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
	sh, c := s.lockChat(chatID)
	rec, ok := c.idempotency[key]
	sh.mu.Unlock()
	return rec, ok, nil
}

// IsMember reads a membership.
func (s *Store) IsMember(ctx context.Context, chatID, user string) (bool, error) {
	sh, c := s.lockChat(chatID)
	_, ok := c.members[user]
	sh.mu.Unlock()
	return ok, nil
}

// IncrementCounter is ADD sequence_counter 1 under attribute_exists.
func (s *Store) IncrementCounter(ctx context.Context, chatID string) (uint64, error) {
	sh, c := s.lockChat(chatID)
	defer sh.mu.Unlock()
	if !c.counterExists {
		return 0, store.ErrCounterMissing
	}
	c.counter++
	return c.counter, nil
}

// GetCounter reads the counter item.
func (s *Store) GetCounter(ctx context.Context, chatID string, consistent bool) (store.Counter, error) {
	sh, c := s.lockChat(chatID)
	defer sh.mu.Unlock()
	return store.Counter{Chat: chatID, Value: c.counter, Missing: !c.counterExists}, nil
}

// PutCounter writes the counter item, optionally only if absent.
func (s *Store) PutCounter(ctx context.Context, counter store.Counter, cond store.Condition) error {
	if cond == store.IfCounterEquals {
		return fmt.Errorf("memstore: PutCounter cannot take IfCounterEquals (no expected value): %w", errValidation)
	}
	sh, c := s.lockChat(counter.Chat)
	defer sh.mu.Unlock()
	if !counterConditionHolds(c, cond, 0) {
		return store.ErrConditionFailed
	}
	c.counter, c.counterExists = counter.Value, true
	return nil
}

// DeleteCounter removes the counter item.
func (s *Store) DeleteCounter(ctx context.Context, chatID string) error {
	sh, c := s.lockChat(chatID)
	c.counter, c.counterExists = 0, false
	sh.mu.Unlock()
	return nil
}

// QueryMessages returns the chat's messages with sequence > q.After.
func (s *Store) QueryMessages(ctx context.Context, q store.Query) ([]store.Message, error) {
	sh, c := s.lockChat(q.Chat)
	defer sh.mu.Unlock()
	var out []store.Message
	collect := func(m store.Message) bool {
		out = append(out, m)
		return q.Limit <= 0 || len(out) < q.Limit
	}
	if q.Descending {
		c.messages.descending(q.After, collect)
	} else {
		c.messages.ascending(q.After, collect)
	}
	return out, nil
}

// Dump copies the state of the given chats.
func (s *Store) Dump(ctx context.Context, chats []string) (store.State, error) {
	var st store.State
	for _, id := range chats {
		sh, c := s.lockChat(id)
		st.Counters = append(st.Counters, store.Counter{Chat: id, Value: c.counter, Missing: !c.counterExists})
		c.messages.ascending(0, func(m store.Message) bool {
			st.Messages = append(st.Messages, m)
			return true
		})
		keys := make([]string, 0, len(c.idempotency))
		for k := range c.idempotency {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			st.Idempotency = append(st.Idempotency, c.idempotency[k])
		}
		sh.mu.Unlock()
	}
	return st, nil
}

// Close does nothing: the store lives in memory.
func (s *Store) Close() error { return nil }
