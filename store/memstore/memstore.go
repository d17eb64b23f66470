// Package memstore is the embedded Store: an in-process implementation of the
// same item semantics as DynamoDB (atomic ADD with a condition, conditional
// puts, transactions that cancel whole with a reason per item). It is the
// default store and the speed reference, and passes the same conformance
// suite as the DynamoDB store.
package memstore

import (
	"context"
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
	messages      map[uint64]store.Message
	orderedSeqs   []uint64 // ascending sequence numbers present in messages
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
			messages:    make(map[uint64]store.Message),
			idempotency: make(map[string]store.IdempotencyRecord),
		}
		sh.chats[chatID] = c
	}
	return c
}

func (c *chat) putMessage(m store.Message) {
	if _, exists := c.messages[m.Seq]; !exists {
		i := sort.Search(len(c.orderedSeqs), func(i int) bool { return c.orderedSeqs[i] >= m.Seq })
		c.orderedSeqs = append(c.orderedSeqs, 0)
		copy(c.orderedSeqs[i+1:], c.orderedSeqs[i:])
		c.orderedSeqs[i] = m.Seq
	}
	c.messages[m.Seq] = m
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
	first := sort.Search(len(c.orderedSeqs), func(i int) bool { return c.orderedSeqs[i] > q.After })
	seqs := c.orderedSeqs[first:]
	n := len(seqs)
	if q.Limit > 0 && q.Limit < n {
		n = q.Limit
	}
	out := make([]store.Message, n)
	for i := 0; i < n; i++ {
		idx := i
		if q.Descending {
			idx = len(seqs) - 1 - i
		}
		out[i] = c.messages[seqs[idx]]
	}
	return out, nil
}

// Dump copies the state of the given chats.
func (s *Store) Dump(ctx context.Context, chats []string) (store.State, error) {
	var st store.State
	for _, id := range chats {
		sh, c := s.lockChat(id)
		st.Counters = append(st.Counters, store.Counter{Chat: id, Value: c.counter, Missing: !c.counterExists})
		for _, seq := range c.orderedSeqs {
			st.Messages = append(st.Messages, c.messages[seq])
		}
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
