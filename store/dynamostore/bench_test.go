package dynamostore

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// BenchmarkBareSDKPersist is the baseline for chatseq's core: ADR-004's
// persist path written directly against aws-sdk-go-v2 with no store layer —
// GetItem idempotency (eventually consistent), GetItem membership
// (consistent), UpdateItem ADD with attribute_exists returning UPDATED_NEW,
// TransactWriteItems of the conditional idempotency put and the message put.
// It reports persists/s; run the core against the same DynamoDB Local with
// the same workers and chats to compare.
//
//	go test ./store/dynamostore -run '^$' -bench BareSDKPersist -benchtime 2000x
func BenchmarkBareSDKPersist(b *testing.B) {
	for _, shape := range []struct{ workers, chats int }{{1, 1}, {8, 1}, {8, 8}} {
		b.Run(fmt.Sprintf("workers=%d/chats=%d", shape.workers, shape.chats), func(b *testing.B) {
			benchBarePersist(b, shape.workers, shape.chats)
		})
	}
}

func benchBarePersist(b *testing.B, workers, chats int) {
	ctx := context.Background()
	run := randomPrefix()
	chatIDs := make([]string, chats)
	for i := range chatIDs {
		chatIDs[i] = fmt.Sprintf("bench-%s-%d", run, i)
		bareCreateChat(b, ctx, chatIDs[i], "alice")
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, workers)
	b.ResetTimer()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				chat := chatIDs[int(i)%chats]
				if err := barePersist(ctx, chat, "alice", "key-"+strconv.FormatInt(i, 10), "hello"); err != nil {
					errs[w] = err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	elapsed := b.Elapsed()
	b.StopTimer()
	for _, err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "persists/s")
	// Every persist must have landed, or the figure measures failures.
	var persisted int64
	for _, chat := range chatIDs {
		out, err := testClient.Query(ctx, &dynamodb.QueryInput{
			TableName:                 aws.String(testTables.Messages),
			KeyConditionExpression:    aws.String("chat_id = :c"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":c": &types.AttributeValueMemberS{Value: chat}},
			Select:                    types.SelectCount,
			ConsistentRead:            aws.Bool(true),
		})
		if err != nil {
			b.Fatal(err)
		}
		persisted += int64(out.Count)
	}
	if persisted != int64(b.N) {
		b.Fatalf("%d messages persisted, want %d", persisted, b.N)
	}
}

func bareCreateChat(b *testing.B, ctx context.Context, chat, member string) {
	b.Helper()
	_, err := testClient.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{
			TableName: aws.String(testTables.Counters),
			Item: map[string]types.AttributeValue{
				"chat_id":          &types.AttributeValueMemberS{Value: chat},
				"sequence_counter": &types.AttributeValueMemberN{Value: "0"},
			},
			ConditionExpression: aws.String("attribute_not_exists(chat_id)"),
		}},
		{Put: &types.Put{
			TableName: aws.String(testTables.Memberships),
			Item: map[string]types.AttributeValue{
				"chat_id": &types.AttributeValueMemberS{Value: chat},
				"user_id": &types.AttributeValueMemberS{Value: member},
			},
		}},
	}})
	if err != nil {
		b.Fatal(err)
	}
}

// barePersist is ADR-004 §7 steps 1-4 for a fresh key.
func barePersist(ctx context.Context, chat, sender, key, content string) error {
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	idemKey := map[string]types.AttributeValue{"chat_id": s(chat), "client_message_id": s(key)}

	// Step 1: idempotency look-up, eventually consistent.
	got, err := testClient.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(testTables.Idempotency), Key: idemKey})
	if err != nil {
		return fmt.Errorf("step 1: %w", err)
	}
	if got.Item != nil {
		return fmt.Errorf("step 1: key %s already persisted", key)
	}
	// Step 2: membership, strongly consistent.
	member, err := testClient.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(testTables.Memberships),
		Key:            map[string]types.AttributeValue{"chat_id": s(chat), "user_id": s(sender)},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return fmt.Errorf("step 2: %w", err)
	}
	if member.Item == nil {
		return fmt.Errorf("step 2: %s is not a member of %s", sender, chat)
	}
	// Step 3: allocate.
	now := time.Now().UTC()
	stamp := s(now.Format(time.RFC3339Nano))
	up, err := testClient.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(testTables.Counters),
		Key:                       map[string]types.AttributeValue{"chat_id": s(chat)},
		UpdateExpression:          aws.String("ADD sequence_counter :incr SET updated_at = :now"),
		ConditionExpression:       aws.String("attribute_exists(sequence_counter)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":incr": &types.AttributeValueMemberN{Value: "1"}, ":now": stamp},
		ReturnValues:              types.ReturnValueUpdatedNew,
	})
	if err != nil {
		return fmt.Errorf("step 3: %w", err)
	}
	seq := up.Attributes["sequence_counter"]
	messageID := s("msg_" + key)
	// Step 4: persist the idempotency key and the message atomically.
	_, err = testClient.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{
			TableName: aws.String(testTables.Idempotency),
			Item: map[string]types.AttributeValue{
				"chat_id": s(chat), "client_message_id": s(key), "message_id": messageID, "sequence": seq,
				"created_at": stamp, "ttl": &types.AttributeValueMemberN{Value: strconv.FormatInt(now.Add(IdempotencyTTL).Unix(), 10)},
			},
			ConditionExpression: aws.String("attribute_not_exists(client_message_id)"),
		}},
		{Put: &types.Put{
			TableName: aws.String(testTables.Messages),
			Item: map[string]types.AttributeValue{
				"chat_id": s(chat), "sequence": seq, "message_id": messageID, "sender_id": s(sender),
				"client_message_id": s(key), "content": s(content), "content_type": s("text/plain"), "created_at": stamp,
			},
		}},
	}})
	if err != nil {
		return fmt.Errorf("step 4: %w", err)
	}
	return nil
}
