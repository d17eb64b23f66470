package memstore

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/chatseq/chatseq/store"
)

var errValidation = errors.New("validation error")

// maxInlineItems is how many items a transaction checks without allocating
// (the persist path writes two or three).
const maxInlineItems = 4

// TransactWrite checks every item's condition under the locks of all chats
// involved, then applies all items or none, like TransactWriteItems.
func (s *Store) TransactWrite(ctx context.Context, items []store.TxItem) error {
	var inline [maxInlineItems]*chat
	targets := inline[:0]
	for _, it := range items {
		id, err := txItemChat(it)
		if err != nil {
			return err
		}
		if n := len(targets); n > 0 && targets[n-1].id == id {
			targets = append(targets, targets[n-1])
			continue
		}
		targets = append(targets, s.partition(id))
	}
	locked := lockInOrder(targets)
	defer unlockAll(locked)

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
			c.idempotency.put(*it.PutIdempotency)
		case it.PutMessage != nil:
			c.messages.put(*it.PutMessage)
		case it.PutCounter != nil:
			c.counter, c.counterExists = it.PutCounter.Value, true
		}
	}
	return nil
}

// lockInOrder locks each distinct chat once, in creation order so
// concurrent transactions cannot deadlock, and returns what it locked.
func lockInOrder(targets []*chat) []*chat {
	if len(targets) == 0 {
		return nil
	}
	distinct := targets[:1:1]
	for _, c := range targets[1:] {
		if !slices.Contains(distinct, c) {
			distinct = append(distinct, c)
		}
	}
	if len(distinct) > 1 {
		slices.SortFunc(distinct, func(a, b *chat) int { return cmp.Compare(a.order, b.order) })
	}
	for _, c := range distinct {
		c.mu.Lock()
	}
	return distinct
}

func unlockAll(locked []*chat) {
	for _, c := range locked {
		c.mu.Unlock()
	}
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
			return !c.idempotency.has(it.PutIdempotency.Key)
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
