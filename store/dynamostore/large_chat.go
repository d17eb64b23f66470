package dynamostore

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/chatseq/chatseq/store"
)

const (
	// batchWriteLimit is BatchWriteItem's most put requests per call.
	batchWriteLimit = 25
	// batchWriteAttempts bounds the retries of items DynamoDB leaves
	// unprocessed (throttling); the wait doubles from batchWriteBackoff.
	batchWriteAttempts = 8
	batchWriteBackoff  = 50 * time.Millisecond
)

// createLargeChat creates a chat of more members than one transaction
// holds: a consistent read refuses an existing chat before anything is
// written, the memberships go in batches, and the counter comes last under
// attribute_not_exists, so the chat exists only with all its members. Two
// concurrent creators of one new chat can leave the loser's memberships
// behind; it still gets store.ErrChatExists.
func (s *Store) createLargeChat(ctx context.Context, chat string, members []string, now types.AttributeValue) error {
	c, err := s.GetCounter(ctx, chat, true)
	if err != nil {
		return err
	}
	if !c.Missing {
		return store.ErrChatExists
	}
	for start := 0; start < len(members); start += batchWriteLimit {
		if err := s.putMemberships(ctx, chat, members[start:min(start+batchWriteLimit, len(members))], now); err != nil {
			return err
		}
	}
	// A conditional put: retried only when it certainly did not apply, or
	// a retry could fail on its own first write and report the chat as
	// someone else's.
	_, err = s.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:           aws.String(s.tables.Counters),
		Item:                counterItem(chat, 0, now),
		ConditionExpression: aws.String("attribute_not_exists(chat_id)"),
	}, retryOnlyNotApplied)
	if isConditionFailed(err) {
		return store.ErrChatExists
	}
	return classify("CreateChat", err)
}

// putMemberships writes one batch of memberships, retrying what DynamoDB
// leaves unprocessed.
func (s *Store) putMemberships(ctx context.Context, chat string, users []string, now types.AttributeValue) error {
	requests := make([]types.WriteRequest, len(users))
	for i, user := range users {
		requests[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: membershipItem(chat, user, now)}}
	}
	pending := map[string][]types.WriteRequest{s.tables.Memberships: requests}
	wait := batchWriteBackoff
	for attempt := 1; ; attempt++ {
		out, err := s.client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: pending})
		if err != nil {
			return classify("CreateChat", err)
		}
		pending = out.UnprocessedItems
		if len(pending) == 0 {
			return nil
		}
		if attempt == batchWriteAttempts {
			return fmt.Errorf("dynamostore: CreateChat: %d memberships still unprocessed after %d attempts", len(pending[s.tables.Memberships]), attempt)
		}
		select {
		case <-ctx.Done():
			return classify("CreateChat", ctx.Err())
		case <-time.After(wait):
		}
		wait *= 2
	}
}
