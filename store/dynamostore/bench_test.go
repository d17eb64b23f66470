package dynamostore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/sequencer"
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

// BenchmarkCoreVsBareSDKPersist runs chatseq's core (sequencer.Core over
// this store, Kafka off, every operation and allocation recorded in a
// history file, as `chatseq bench --store dynamodb-local --kafka off`
// does) side by side with barePersist, same DynamoDB Local, same workers
// and chats, b.N persists each. The two alternate in rounds so neither
// gets all of the JVM's warm-up. It reports persists/s and p99 allocation
// latency of each, and the ratio core/bare (the goal is ≥ 0.9).
// Allocation latency is UpdateItem as its caller sees it: for the bare
// loop an SDK middleware times the call, for the core the step-3 timing
// the core itself reports.
//
//	go test ./store/dynamostore -run '^$' -bench CoreVsBareSDKPersist -benchtime 1000x
func BenchmarkCoreVsBareSDKPersist(b *testing.B) {
	for _, shape := range []struct{ workers, chats int }{{1, 1}, {8, 1}, {8, 8}} {
		b.Run(fmt.Sprintf("workers=%d/chats=%d", shape.workers, shape.chats), func(b *testing.B) {
			benchCoreVsBare(b, shape.workers, shape.chats)
		})
	}
}

// compareRounds is how many times the bare loop and the core take turns.
const compareRounds = 4

// sideResult accumulates one side's persists, time and allocation latencies.
type sideResult struct {
	persists int
	elapsed  time.Duration
	allocs   []time.Duration
}

func (s *sideResult) rate() float64 { return float64(s.persists) / s.elapsed.Seconds() }

func (s *sideResult) p99() time.Duration {
	if len(s.allocs) == 0 {
		return 0
	}
	sorted := slices.Clone(s.allocs)
	slices.Sort(sorted)
	return sorted[(len(sorted)*99+99)/100-1]
}

func benchCoreVsBare(b *testing.B, workers, chats int) {
	ctx := context.Background()
	run := randomPrefix()
	bareChats, coreChats := make([]string, chats), make([]string, chats)
	core, rec, closeHistory := newRecordedCore(b)
	for i := range chats {
		bareChats[i] = fmt.Sprintf("bare-%s-%d", run, i)
		bareCreateChat(b, ctx, bareChats[i], "alice")
		coreChats[i] = fmt.Sprintf("core-%s-%d", run, i)
		if err := core.CreateChat(ctx, coreChats[i], []string{"alice"}); err != nil {
			b.Fatal(err)
		}
	}
	var bare, chatseq sideResult
	timed, allocTimes := timedClient()
	b.ResetTimer()
	for round := range compareRounds {
		n := b.N/compareRounds + btoi(round < b.N%compareRounds)
		sides := []func(){
			func() {
				bare.persists += n
				bare.elapsed += withClient(timed, func() { runBare(b, workers, bareChats, n, round) })
			},
			func() {
				chatseq.persists += n
				chatseq.elapsed += runCore(b, core, rec, workers, coreChats, n, round, &chatseq)
			},
		}
		if round%2 == 1 {
			sides[0], sides[1] = sides[1], sides[0]
		}
		for _, side := range sides {
			side()
		}
	}
	b.StopTimer()
	bare.allocs = allocTimes()
	closeHistory()

	b.ReportMetric(bare.rate(), "bare_persists/s")
	b.ReportMetric(chatseq.rate(), "core_persists/s")
	b.ReportMetric(chatseq.rate()/bare.rate(), "core/bare")
	b.ReportMetric(float64(bare.p99())/float64(time.Millisecond), "bare_p99_alloc_ms")
	b.ReportMetric(float64(chatseq.p99())/float64(time.Millisecond), "core_p99_alloc_ms")
	if len(bare.allocs) != b.N || len(chatseq.allocs) != b.N {
		b.Fatalf("timed %d bare and %d core allocations, want %d each", len(bare.allocs), len(chatseq.allocs), b.N)
	}
}

func btoi(v bool) int {
	if v {
		return 1
	}
	return 0
}

// runBare is n bare persists over workers, keys unique to the round.
func runBare(b *testing.B, workers int, chats []string, n, round int) {
	ctx := context.Background()
	err := parallel(workers, n, func(i int) error {
		return barePersist(ctx, chats[i%len(chats)], "alice", fmt.Sprintf("key-%d-%d", round, i), "hello")
	})
	if err != nil {
		b.Fatal(err)
	}
}

// runCore is n persists through the core, each recorded as the bench
// records it: invoke, allocate trace, ok.
func runCore(b *testing.B, core *sequencer.Core, rec *history.Recorder, workers int, chats []string, n, round int, res *sideResult) time.Duration {
	ctx := context.Background()
	var mu sync.Mutex
	start := time.Now()
	err := parallel(workers, n, func(i int) error {
		pid := round*n + i
		req := sequencer.Request{Chat: chats[i%len(chats)], Key: fmt.Sprintf("key-%d-%d", round, i), Sender: "alice", Content: "hello"}
		rec.Record(&history.Event{Kind: history.KindInvoke, Process: pid, F: history.FPersist, Chat: req.Chat, Key: req.Key, Sender: req.Sender})
		out, err := core.Persist(ctx, req, history.ProcessTracer{Rec: rec, Process: pid})
		if err != nil {
			return err
		}
		rec.Record(&history.Event{Kind: history.KindOK, Process: pid, F: history.FPersist, Chat: req.Chat, Key: req.Key, Seq: out.Seq, MessageID: out.MessageID})
		mu.Lock()
		res.allocs = append(res.allocs, time.Duration(out.Timings.Allocate))
		mu.Unlock()
		return nil
	})
	elapsed := time.Since(start)
	if err != nil {
		b.Fatal(err)
	}
	return elapsed
}

// parallel runs f(0..n-1) on workers goroutines and returns the first error.
func parallel(workers, n int, f func(i int) error) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if err := f(i); err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// newRecordedCore is the core over the test tables with a history recorder
// streaming to a file, as chatseq bench sets it up with Kafka off.
func newRecordedCore(b *testing.B) (*sequencer.Core, *history.Recorder, func()) {
	core, err := sequencer.New(sequencer.Config{Store: New(testClient, testTables)})
	if err != nil {
		b.Fatal(err)
	}
	f, err := os.Create(filepath.Join(b.TempDir(), "history.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	rec, err := history.NewRecorder(f, history.Header{Version: history.Version, Target: "dynamodb-local"}, 200*time.Millisecond)
	if err != nil {
		b.Fatal(err)
	}
	return core, rec, func() {
		if err := errors.Join(rec.Close(), f.Close()); err != nil {
			b.Fatal(err)
		}
	}
}

// timedClient is testClient with a middleware timing every UpdateItem (the
// bare loop's only one is step 3); samples returns what it measured.
func timedClient() (*dynamodb.Client, func() []time.Duration) {
	var mu sync.Mutex
	var times []time.Duration
	timer := func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("chatseqAllocTimer",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				if _, ok := in.Parameters.(*dynamodb.UpdateItemInput); !ok {
					return next.HandleInitialize(ctx, in)
				}
				start := time.Now()
				out, md, err := next.HandleInitialize(ctx, in)
				d := time.Since(start)
				mu.Lock()
				times = append(times, d)
				mu.Unlock()
				return out, md, err
			}), middleware.Before)
	}
	client := dynamodb.New(testClient.Options(), func(o *dynamodb.Options) { o.APIOptions = append(o.APIOptions, timer) })
	return client, func() []time.Duration {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(times)
	}
}

// withClient points barePersist (which reads the package's testClient) at
// client while f runs and returns f's duration. Benchmarks run one at a
// time, after the tests, so nothing else reads testClient meanwhile.
func withClient(client *dynamodb.Client, f func()) time.Duration {
	saved := testClient
	testClient = client
	defer func() { testClient = saved }()
	start := time.Now()
	f()
	return time.Since(start)
}
