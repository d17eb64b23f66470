package dynamostore

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/chatseq/chatseq/store"
)

// These tests read the raw items back with the SDK, to pin the attribute
// names and types ADR-004 specifies (other tools and runbooks read them).

func rawItem(t *testing.T, table string, key item) item {
	t.Helper()
	out, err := testClient.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		t.Fatalf("GetItem %s: %v", table, err)
	}
	if out.Item == nil {
		t.Fatalf("GetItem %s %v: no item", table, key)
	}
	return out.Item
}

// wantAttrs checks each named attribute's type ('S' or 'N') and, when want
// is not "", its value.
func wantAttrs(t *testing.T, what string, it item, want map[string]struct{ typ, value string }) {
	t.Helper()
	for name, w := range want {
		v, ok := it[name]
		if !ok {
			t.Errorf("%s: attribute %s missing (have %v)", what, name, keys(it))
			continue
		}
		var typ, value string
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			typ, value = "S", v.Value
		case *types.AttributeValueMemberN:
			typ, value = "N", v.Value
		default:
			typ = "other"
		}
		if typ != w.typ || (w.value != "" && value != w.value) {
			t.Errorf("%s: %s = %s %q, want %s %q", what, name, typ, value, w.typ, w.value)
		}
	}
}

func keys(it item) []string {
	var out []string
	for k := range it {
		out = append(out, k)
	}
	return out
}

func newTestStore(now time.Time) *Store {
	s := New(testClient, testTables)
	s.now = func() time.Time { return now }
	return s
}

func TestCreateChatAndIncrementWriteADRAttributes(t *testing.T) {
	ctx := context.Background()
	created := time.Date(2026, 2, 1, 10, 0, 0, 5, time.UTC)
	s := newTestStore(created)
	chat := "items-create-" + randomPrefix()
	if err := s.CreateChat(ctx, chat, []string{"alice", "alice", "bob"}); err != nil {
		t.Fatalf("CreateChat with a repeated member: %v", err)
	}
	stampCreated := created.Format(timeLayout)
	wantAttrs(t, "counter after CreateChat", rawItem(t, testTables.Counters, counterKey(chat)),
		map[string]struct{ typ, value string }{
			"chat_id": {"S", chat}, "sequence_counter": {"N", "0"},
			"created_at": {"S", stampCreated}, "updated_at": {"S", stampCreated},
		})
	for _, user := range []string{"alice", "bob"} {
		wantAttrs(t, "membership "+user, rawItem(t, testTables.Memberships, item{"chat_id": str(chat), "user_id": str(user)}),
			map[string]struct{ typ, value string }{"chat_id": {"S", chat}, "user_id": {"S", user}})
	}

	later := created.Add(time.Minute)
	s.now = func() time.Time { return later }
	if _, err := s.IncrementCounter(ctx, chat); err != nil {
		t.Fatal(err)
	}
	wantAttrs(t, "counter after IncrementCounter", rawItem(t, testTables.Counters, counterKey(chat)),
		map[string]struct{ typ, value string }{
			"sequence_counter": {"N", "1"},
			"created_at":       {"S", stampCreated}, "updated_at": {"S", later.Format(timeLayout)},
		})

	// An optimistic allocation rewrites the counter but keeps created_at.
	next := store.Counter{Chat: chat, Value: 2}
	if err := s.TransactWrite(ctx, []store.TxItem{{PutCounter: &next, Condition: store.IfCounterEquals, Expected: 1}}); err != nil {
		t.Fatal(err)
	}
	wantAttrs(t, "counter after an IfCounterEquals transaction", rawItem(t, testTables.Counters, counterKey(chat)),
		map[string]struct{ typ, value string }{"sequence_counter": {"N", "2"}, "created_at": {"S", stampCreated}})
}

func TestTransactWriteWritesADRAttributes(t *testing.T) {
	ctx := context.Background()
	// Far ahead: the idempotency table has the ADR's ttl on, and DynamoDB
	// Local deletes an item whose ttl has passed, at a moment of its own
	// (CI read "no item" for a ttl in the past).
	now := time.Date(2100, 2, 1, 10, 0, 0, 123, time.UTC)
	s := newTestStore(now)
	chat := "items-tx-" + randomPrefix()
	expires := now.Add(IdempotencyTTL)
	rec := store.IdempotencyRecord{Chat: chat, Key: "k1", Seq: 42, MessageID: "msg_1", Sender: "alice",
		PayloadHash: "h1", CreatedAt: now, ExpiresAt: expires}
	msg := store.Message{Chat: chat, Seq: 42, MessageID: "msg_1", Sender: "alice", Key: "k1",
		Content: "hi", ContentType: "text/plain", CreatedAt: now}
	// A record without an expiry still gets the ADR's 7-day ttl.
	noExpiry := store.IdempotencyRecord{Chat: chat, Key: "k2", Seq: 43, MessageID: "msg_2", CreatedAt: now}
	err := s.TransactWrite(ctx, []store.TxItem{
		{PutIdempotency: &rec, Condition: store.IfAbsent},
		{PutMessage: &msg},
		{PutIdempotency: &noExpiry, Condition: store.IfAbsent},
	})
	if err != nil {
		t.Fatal(err)
	}
	stamp := now.Format(timeLayout)
	wantAttrs(t, "idempotency key", rawItem(t, testTables.Idempotency, item{"chat_id": str(chat), "client_message_id": str("k1")}),
		map[string]struct{ typ, value string }{
			"chat_id": {"S", chat}, "client_message_id": {"S", "k1"}, "message_id": {"S", "msg_1"},
			"sequence": {"N", "42"}, "created_at": {"S", stamp}, "ttl": {"N", strconv.FormatInt(expires.Unix(), 10)},
			"sender_id": {"S", "alice"}, "payload_hash": {"S", "h1"},
		})
	wantAttrs(t, "idempotency key without expiry", rawItem(t, testTables.Idempotency, item{"chat_id": str(chat), "client_message_id": str("k2")}),
		map[string]struct{ typ, value string }{"ttl": {"N", strconv.FormatInt(now.Add(IdempotencyTTL).Unix(), 10)}})
	wantAttrs(t, "message", rawItem(t, testTables.Messages, item{"chat_id": str(chat), "sequence": num(42)}),
		map[string]struct{ typ, value string }{
			"chat_id": {"S", chat}, "sequence": {"N", "42"}, "message_id": {"S", "msg_1"},
			"sender_id": {"S", "alice"}, "client_message_id": {"S", "k1"}, "content": {"S", "hi"},
			"content_type": {"S", "text/plain"}, "created_at": {"S", stamp},
		})
}

func TestRecoveryPutCarriesAuditTrail(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 2, 1, 10, 0, 0, 0, time.UTC)
	s := newTestStore(now)
	chat := "items-recover-" + randomPrefix()
	if err := s.PutCounter(ctx, store.Counter{Chat: chat, Value: 17}, store.IfAbsent); err != nil {
		t.Fatal(err)
	}
	wantAttrs(t, "recovered counter", rawItem(t, testTables.Counters, counterKey(chat)),
		map[string]struct{ typ, value string }{
			"sequence_counter": {"N", "17"}, "recovered_at": {"S", now.Format(timeLayout)},
			"recovered_from_sequence": {"N", "17"},
		})
}

// Items written by other code (the ADR's own Python) lack chatseq's extra
// attributes and must still read.
func TestIdempotencyItemWithoutChatseqAttributesReads(t *testing.T) {
	ctx := context.Background()
	chat := "items-foreign-" + randomPrefix()
	_, err := testClient.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(testTables.Idempotency),
		Item: item{
			"chat_id": str(chat), "client_message_id": str("k"), "message_id": str("msg_x"),
			"sequence": num(5), "created_at": str("2026-01-30T12:00:00Z"), "ttl": numInt(4102444800), // 2100: not yet expired (see above)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	rec, ok, err := New(testClient, testTables).GetIdempotency(ctx, chat, "k", true)
	if err != nil || !ok {
		t.Fatalf("GetIdempotency = %v, %v", ok, err)
	}
	if rec.Seq != 5 || rec.MessageID != "msg_x" || rec.ExpiresAt.Unix() != 4102444800 || rec.Sender != "" {
		t.Fatalf("GetIdempotency = %+v", rec)
	}
}

func TestPutCounterRejectsIfCounterEquals(t *testing.T) {
	s := New(testClient, testTables)
	err := s.PutCounter(context.Background(), store.Counter{Chat: "x-" + randomPrefix(), Value: 1}, store.IfCounterEquals)
	if err == nil {
		t.Fatal("PutCounter(IfCounterEquals) succeeded without an expected value")
	}
}

func TestTransactWriteRejectsMalformedItems(t *testing.T) {
	s := New(testClient, testTables)
	msg := store.Message{Chat: "c", Seq: 1}
	rec := store.IdempotencyRecord{Chat: "c", Key: "k"}
	for name, items := range map[string][]store.TxItem{
		"no item":                 {{}},
		"two items":               {{PutMessage: &msg, PutIdempotency: &rec}},
		"message IfCounterEquals": {{PutMessage: &msg, Condition: store.IfCounterEquals}},
	} {
		if err := s.TransactWrite(context.Background(), items); err == nil {
			t.Errorf("%s: TransactWrite succeeded", name)
		}
	}
}

// CreateChat writes up to 99 members with the counter in one transaction
// (TransactWriteItems holds 100 items) and more in batches before the
// counter: both sides of the boundary make a chat with every member.
func TestCreateChatEitherSideOfTheTransactionLimit(t *testing.T) {
	ctx := context.Background()
	s := New(testClient, testTables)
	for _, n := range []int{maxCreateChatMembers, maxCreateChatMembers + 1} {
		members := make([]string, n)
		for i := range members {
			members[i] = "user-" + strconv.Itoa(i)
		}
		chat := "items-members-" + randomPrefix()
		if err := s.CreateChat(ctx, chat, members); err != nil {
			t.Fatalf("CreateChat with %d members: %v", n, err)
		}
		for _, user := range []string{members[0], members[n-1]} {
			if ok, err := s.IsMember(ctx, chat, user); err != nil || !ok {
				t.Fatalf("%d members: IsMember(%s) = %v, %v after CreateChat", n, user, ok, err)
			}
		}
	}
}
