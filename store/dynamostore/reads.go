package dynamostore

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/chatseq/chatseq/store"
)

// GetIdempotency is ADR-004 step 1: GetItem on idempotency_keys. With
// consistent=false it is the eventually consistent read the ADR allows (a
// stale miss is caught by step 4's conditional put) at half the read cost.
func (s *Store) GetIdempotency(ctx context.Context, chat, key string, consistent bool) (store.IdempotencyRecord, bool, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.tables.Idempotency),
		Key: item{
			attrChatID:          str(chat),
			attrClientMessageID: str(key),
		},
		ConsistentRead: aws.Bool(consistent),
	})
	if err != nil {
		return store.IdempotencyRecord{}, false, classify("GetIdempotency", err)
	}
	if out.Item == nil {
		return store.IdempotencyRecord{}, false, nil
	}
	rec, err := decodeIdempotency(out.Item)
	return rec, err == nil, err
}

// IsMember is ADR-004 step 2: a strongly consistent GetItem on
// chat_memberships, since a stale read here would be a security hole.
func (s *Store) IsMember(ctx context.Context, chat, user string) (bool, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.tables.Memberships),
		Key: item{
			attrChatID: str(chat),
			attrUserID: str(user),
		},
		ConsistentRead:       aws.Bool(true),
		ProjectionExpression: aws.String(attrChatID), // presence is all we need
	})
	if err != nil {
		return false, classify("IsMember", err)
	}
	return out.Item != nil, nil
}
