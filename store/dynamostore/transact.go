package dynamostore

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/chatseq/chatseq/store"
)

// errBadTxItem marks a TxItem this store cannot express; it is a caller bug,
// reported before anything is sent.
var errBadTxItem = errors.New("invalid transaction item")

// TransactWrite is ADR-004 step 4: one TransactWriteItems call, all items or
// none. A failed condition comes back as *store.TransactionCanceledError with
// DynamoDB's CancellationReasons, one per item in request order. The SDK
// fills ClientRequestToken, so its retries of an applied transaction are
// answered as success instead of re-applying it.
func (s *Store) TransactWrite(ctx context.Context, items []store.TxItem) error {
	tx := make([]types.TransactWriteItem, len(items))
	for i, it := range items {
		w, err := s.txWrite(it)
		if err != nil {
			return fmt.Errorf("dynamostore: TransactWrite item %d: %w", i, err)
		}
		tx[i] = w
	}
	_, err := s.client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tx})
	if canceled, ok := cancellation(err, len(items)); ok {
		return canceled
	}
	return classify("TransactWrite", err)
}

func (s *Store) txWrite(it store.TxItem) (types.TransactWriteItem, error) {
	set := 0
	for _, p := range []bool{it.PutIdempotency != nil, it.PutMessage != nil, it.PutCounter != nil} {
		if p {
			set++
		}
	}
	if set != 1 {
		return types.TransactWriteItem{}, fmt.Errorf("%w: %d items set, want exactly 1", errBadTxItem, set)
	}
	switch {
	case it.PutIdempotency != nil:
		put := &types.Put{TableName: aws.String(s.tables.Idempotency), Item: idempotencyItem(*it.PutIdempotency)}
		switch it.Condition {
		case store.Unconditional:
		case store.IfAbsent:
			put.ConditionExpression = aws.String("attribute_not_exists(client_message_id)")
		default:
			return types.TransactWriteItem{}, fmt.Errorf("%w: idempotency put with condition %d", errBadTxItem, it.Condition)
		}
		return types.TransactWriteItem{Put: put}, nil
	case it.PutMessage != nil:
		put := &types.Put{TableName: aws.String(s.tables.Messages), Item: messageItem(*it.PutMessage)}
		switch it.Condition {
		case store.Unconditional: // ADR-004 puts the message unconditionally
		case store.IfAbsent:
			put.ConditionExpression = aws.String("attribute_not_exists(chat_id)")
		default:
			return types.TransactWriteItem{}, fmt.Errorf("%w: message put with condition %d", errBadTxItem, it.Condition)
		}
		return types.TransactWriteItem{Put: put}, nil
	default:
		return s.txCounter(*it.PutCounter, it.Condition, it.Expected)
	}
}

// txCounter sets the counter with an Update rather than a Put so created_at
// survives; with IfCounterEquals it is ADR-004's optimistic allocation
// (Option B): "sequence_counter = :expected", SET sequence_counter = N+1.
func (s *Store) txCounter(c store.Counter, cond store.Condition, expected uint64) (types.TransactWriteItem, error) {
	up := &types.Update{
		TableName:        aws.String(s.tables.Counters),
		Key:              counterKey(c.Chat),
		UpdateExpression: aws.String("SET sequence_counter = :value, updated_at = :now, created_at = if_not_exists(created_at, :now)"),
		ExpressionAttributeValues: item{
			":value": num(c.Value),
			":now":   stamp(s.now()),
		},
	}
	switch cond {
	case store.Unconditional:
	case store.IfAbsent:
		up.ConditionExpression = aws.String("attribute_not_exists(chat_id)")
	case store.IfCounterEquals:
		// Fails on a missing counter too: the attribute is then absent.
		up.ConditionExpression = aws.String("sequence_counter = :expected")
		up.ExpressionAttributeValues[":expected"] = num(expected)
	default:
		return types.TransactWriteItem{}, fmt.Errorf("%w: counter put with condition %d", errBadTxItem, cond)
	}
	return types.TransactWriteItem{Update: up}, nil
}
