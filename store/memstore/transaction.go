package memstore

import (
	"context"
	"fmt"
	"sort"

	"github.com/chatseq/chatseq/store"
)

// TransactWrite checks every item's condition under the locks of all chats
// involved, then applies all items or none, like TransactWriteItems.
func (s *Store) TransactWrite(ctx context.Context, items []store.TxItem) error {
	chatIDs := make([]string, len(items))
	for i, it := range items {
		id, err := txItemChat(it)
		if err != nil {
			return err
		}
		chatIDs[i] = id
	}
	unlock := s.lockShards(chatIDs)
	defer unlock()

	reasons := make([]string, len(items))
	failed := false
	for i, it := range items {
		reasons[i] = store.ReasonNone
		if !s.txConditionHolds(chatIDs[i], it) {
			reasons[i] = store.ReasonConditionalCheckFailed
			failed = true
		}
	}
	if failed {
		return &store.TransactionCanceledError{Reasons: reasons}
	}
	for i, it := range items {
		c := s.shards[s.shardIndex(chatIDs[i])].chatLocked(chatIDs[i])
		switch {
		case it.PutIdempotency != nil:
			c.idempotency[it.PutIdempotency.Key] = *it.PutIdempotency
		case it.PutMessage != nil:
			c.putMessage(*it.PutMessage)
		case it.PutCounter != nil:
			c.counter, c.counterExists = it.PutCounter.Value, true
		}
	}
	return nil
}

func txItemChat(it store.TxItem) (string, error) {
	switch {
	case it.PutIdempotency != nil:
		return it.PutIdempotency.Chat, nil
	case it.PutMessage != nil:
		return it.PutMessage.Chat, nil
	case it.PutCounter != nil:
		return it.PutCounter.Chat, nil
	}
	return "", fmt.Errorf("transaction item names no item: %w", errValidation)
}

var errValidation = fmt.Errorf("validation error")

func (s *Store) txConditionHolds(chatID string, it store.TxItem) bool {
	c := s.shards[s.shardIndex(chatID)].chatLocked(chatID)
	switch {
	case it.PutIdempotency != nil:
		if it.Condition == store.IfAbsent {
			_, exists := c.idempotency[it.PutIdempotency.Key]
			return !exists
		}
	case it.PutMessage != nil:
		if it.Condition == store.IfAbsent {
			_, exists := c.messages[it.PutMessage.Seq]
			return !exists
		}
	case it.PutCounter != nil:
		return counterConditionHolds(c, it.Condition, it.Expected)
	}
	return true
}

func counterConditionHolds(c *chat, cond store.Condition, expected uint64) bool {
	switch cond {
	case store.IfAbsent:
		return !c.counterExists
	case store.IfCounterEquals:
		return c.counterExists && c.counter == expected
	}
	return true
}

// lockShards locks each distinct shard once, in index order so concurrent
// transactions cannot deadlock.
func (s *Store) lockShards(chatIDs []string) (unlock func()) {
	var distinct []int
	for _, id := range chatIDs {
		i := s.shardIndex(id)
		if !containsInt(distinct, i) {
			distinct = append(distinct, i)
		}
	}
	sort.Ints(distinct)
	for _, i := range distinct {
		s.shards[i].mu.Lock()
	}
	return func() {
		for _, i := range distinct {
			s.shards[i].mu.Unlock()
		}
	}
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
