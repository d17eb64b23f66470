package dynamostore

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/chatseq/chatseq/store"
)

// maxCreateChatMembers keeps CreateChat within TransactWriteItems' 100-item
// limit (one item is the counter).
const maxCreateChatMembers = 99

// CreateChat writes the counter at 0 and one membership per member in one
// TransactWriteItems (ADR-004 §9), the counter put conditional on
// attribute_not_exists(chat_id) so a second call changes nothing and returns
// store.ErrChatExists.
//
// More members than fit beside the counter in one transaction (99) cannot
// be written atomically; createLargeChat writes them first and the counter
// last, so the chat exists only once every member is in.
func (s *Store) CreateChat(ctx context.Context, chat string, members []string) error {
	members = distinct(members) // DynamoDB rejects two operations on one item
	now := stamp(s.now())
	if len(members) > maxCreateChatMembers {
		return s.createLargeChat(ctx, chat, members, now)
	}
	items := make([]types.TransactWriteItem, 0, 1+len(members))
	items = append(items, types.TransactWriteItem{Put: &types.Put{
		TableName:           aws.String(s.tables.Counters),
		Item:                counterItem(chat, 0, now),
		ConditionExpression: aws.String("attribute_not_exists(chat_id)"),
	}})
	for _, user := range members {
		items = append(items, types.TransactWriteItem{Put: &types.Put{
			TableName: aws.String(s.tables.Memberships),
			Item:      membershipItem(chat, user, now),
		}})
	}
	_, err := s.client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	if canceled, ok := cancellation(err, len(items)); ok {
		if canceled.ConditionFailedAt(0) {
			return store.ErrChatExists
		}
		return fmt.Errorf("dynamostore: CreateChat: %w", canceled)
	}
	return classify("CreateChat", err)
}

// IncrementCounter is ADR-004 step 3: UpdateItem ADD sequence_counter :incr
// SET updated_at = :now, conditional on attribute_exists(sequence_counter),
// ReturnValues UPDATED_NEW. Without the condition ADD would silently create a
// missing counter at 1 and re-issue sequences already persisted.
func (s *Store) IncrementCounter(ctx context.Context, chat string) (uint64, error) {
	out, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:           aws.String(s.tables.Counters),
		Key:                 counterKey(chat),
		UpdateExpression:    aws.String("ADD sequence_counter :incr SET updated_at = :now"),
		ConditionExpression: aws.String("attribute_exists(sequence_counter)"),
		ExpressionAttributeValues: item{
			":incr": num(1),
			":now":  stamp(s.now()),
		},
		ReturnValues: types.ReturnValueUpdatedNew,
	}, retryOnlyNotApplied)
	if isConditionFailed(err) {
		return 0, fmt.Errorf("dynamostore: IncrementCounter %q: %w", chat, store.ErrCounterMissing)
	}
	if err != nil {
		return 0, classify("IncrementCounter", err)
	}
	r := itemReader{it: out.Attributes}
	seq := r.uint(attrSequenceCounter)
	return seq, r.err
}

// GetCounter reads the counter item; Missing when there is none.
func (s *Store) GetCounter(ctx context.Context, chat string, consistent bool) (store.Counter, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(s.tables.Counters),
		Key:            counterKey(chat),
		ConsistentRead: aws.Bool(consistent),
	})
	if err != nil {
		return store.Counter{}, classify("GetCounter", err)
	}
	return decodeCounter(chat, out.Item)
}

// PutCounter writes the whole counter item. With store.IfAbsent it is the
// counter recovery put: conditional on attribute_not_exists(chat_id) and
// carrying recovered_at / recovered_from_sequence as the audit trail.
// IfCounterEquals needs an expected value, which only a TxItem carries.
func (s *Store) PutCounter(ctx context.Context, c store.Counter, cond store.Condition) error {
	now := stamp(s.now())
	in := &dynamodb.PutItemInput{
		TableName: aws.String(s.tables.Counters),
		Item:      counterItem(c.Chat, c.Value, now),
	}
	switch cond {
	case store.Unconditional:
	case store.IfAbsent:
		in.ConditionExpression = aws.String("attribute_not_exists(chat_id)")
		in.Item[attrRecoveredAt] = now
		in.Item[attrRecoveredFromSequence] = num(c.Value)
	default:
		return fmt.Errorf("dynamostore: PutCounter: condition %d is not supported here (use TransactWrite for IfCounterEquals)", cond)
	}
	_, err := s.client.PutItem(ctx, in, retryOnlyNotApplied)
	if isConditionFailed(err) {
		return fmt.Errorf("dynamostore: PutCounter %q: %w", c.Chat, store.ErrConditionFailed)
	}
	return classify("PutCounter", err)
}

// DeleteCounter removes the counter item (drills only: in production this is
// the SEV-2 incident ADR-004 warns about). Deleting an absent item succeeds,
// as DeleteItem does.
func (s *Store) DeleteCounter(ctx context.Context, chat string) error {
	_, err := s.client.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: aws.String(s.tables.Counters),
		Key:       counterKey(chat),
	})
	return classify("DeleteCounter", err)
}

func distinct(xs []string) []string {
	seen := make(map[string]bool, len(xs))
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
