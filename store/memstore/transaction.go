package memstore

import (
	"context"
	"errors"
	"sort"

	"github.com/chatseq/chatseq/store"
)

var errValidation = errors.New("validation error")

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
	targets, unlock := s.lockChats(chatIDs)
	defer unlock()

	var reasons []string
	for i, it := range items {
		if !txConditionHolds(targets[i], it) {
			if reasons == nil {
				reasons = make([]string, len(items))
				for j := range reasons {
					reasons[j] = store.ReasonNone
				}
			}
			reasons[i] = store.ReasonConditionalCheckFailed
		}
	}
	if reasons != nil {
		return &store.TransactionCanceledError{Reasons: reasons}
	}
	for i, it := range items {
		c := targets[i]
		switch {
		case it.PutIdempotency != nil:
			c.idempotency[it.PutIdempotency.Key] = *it.PutIdempotency
		case it.PutMessage != nil:
			c.messages.put(*it.PutMessage)
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
	return "", errors.Join(errValidation, errors.New("transaction item names no item"))
}

func txConditionHolds(c *chat, it store.TxItem) bool {
	switch {
	case it.PutIdempotency != nil:
		if it.Condition == store.IfAbsent {
			_, exists := c.idempotency[it.PutIdempotency.Key]
			return !exists
		}
	case it.PutMessage != nil:
		if it.Condition == store.IfAbsent {
			return !c.messages.has(it.PutMessage.Seq)
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

// lockChats locks the shards of the given chats, each once and in index
// order so concurrent transactions cannot deadlock, and returns each item's
// chat, hashing each distinct chat id once.
func (s *Store) lockChats(chatIDs []string) ([]*chat, func()) {
	shardOf := make([]int, len(chatIDs))
	var distinct []int
	for i, id := range chatIDs {
		if i > 0 && id == chatIDs[i-1] {
			shardOf[i] = shardOf[i-1]
			continue
		}
		shardOf[i] = s.shardIndex(id)
		if !containsInt(distinct, shardOf[i]) {
			distinct = append(distinct, shardOf[i])
		}
	}
	sort.Ints(distinct)
	for _, i := range distinct {
		s.shards[i].mu.Lock()
	}
	targets := make([]*chat, len(chatIDs))
	for i, id := range chatIDs {
		if i > 0 && id == chatIDs[i-1] {
			targets[i] = targets[i-1]
			continue
		}
		targets[i] = s.shards[shardOf[i]].chatLocked(id)
	}
	return targets, func() {
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
