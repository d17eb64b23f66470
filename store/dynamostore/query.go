package dynamostore

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/chatseq/chatseq/store"
)

// QueryMessages is a Query on messages: chat_id = :chat AND sequence > :after,
// ascending unless q.Descending (ScanIndexForward=false; with Limit 1 that is
// the counter recovery query for the highest persisted sequence). Reads are
// strongly consistent because a sync after an ACK must see the acked message
// (ADR-004's read-after-write guarantee). Pages are followed until q.Limit
// items or the end, since DynamoDB cuts pages at 1 MB regardless of Limit.
func (s *Store) QueryMessages(ctx context.Context, q store.Query) ([]store.Message, error) {
	in := &dynamodb.QueryInput{
		TableName:                aws.String(s.tables.Messages),
		KeyConditionExpression:   aws.String("chat_id = :chat AND #seq > :after"),
		ExpressionAttributeNames: map[string]string{"#seq": attrSequence},
		ExpressionAttributeValues: item{
			":chat":  str(q.Chat),
			":after": num(q.After),
		},
		ScanIndexForward: aws.Bool(!q.Descending),
		ConsistentRead:   aws.Bool(true),
	}
	out := []store.Message{}
	for {
		if q.Limit > 0 {
			in.Limit = aws.Int32(int32(min(q.Limit-len(out), 1<<30)))
		}
		page, err := s.client.Query(ctx, in)
		if err != nil {
			return nil, classify("QueryMessages", err)
		}
		for _, it := range page.Items {
			m, err := decodeMessage(it)
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		}
		if len(page.LastEvaluatedKey) == 0 || (q.Limit > 0 && len(out) >= q.Limit) {
			return out, nil
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
}

// Dump reads, for each chat, the counter (Missing when absent), every
// message in sequence order and every idempotency record in key order, all
// with strongly consistent reads.
func (s *Store) Dump(ctx context.Context, chats []string) (store.State, error) {
	st := store.State{Read: store.AllTables}
	for _, chat := range chats {
		c, err := s.GetCounter(ctx, chat, true)
		if err != nil {
			return store.State{}, err
		}
		st.Counters = append(st.Counters, c)
		msgs, err := s.QueryMessages(ctx, store.Query{Chat: chat})
		if err != nil {
			return store.State{}, err
		}
		st.Messages = append(st.Messages, msgs...)
		recs, err := s.idempotencyRecords(ctx, chat)
		if err != nil {
			return store.State{}, err
		}
		st.Idempotency = append(st.Idempotency, recs...)
	}
	return st, nil
}

func (s *Store) idempotencyRecords(ctx context.Context, chat string) ([]store.IdempotencyRecord, error) {
	p := dynamodb.NewQueryPaginator(s.client, &dynamodb.QueryInput{
		TableName:                 aws.String(s.tables.Idempotency),
		KeyConditionExpression:    aws.String("chat_id = :chat"),
		ExpressionAttributeValues: item{":chat": str(chat)},
		ConsistentRead:            aws.Bool(true),
	})
	var out []store.IdempotencyRecord
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, classify("Dump idempotency_keys", err)
		}
		for _, it := range page.Items {
			rec, err := decodeIdempotency(it)
			if err != nil {
				return nil, err
			}
			out = append(out, rec)
		}
	}
	// Query returns sort-key order: client_message_id by UTF-8 bytes, which
	// is Go's string order.
	return out, nil
}
