// Package dynamostore is the Store backed by Amazon DynamoDB (or DynamoDB
// Local), issuing exactly the calls ADR-004 specifies: UpdateItem ADD with
// attribute_exists for allocation, TransactWriteItems with a conditional
// idempotency put for persistence, a transactional CreateChat, and the
// attribute_not_exists recovery put.
package dynamostore

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/chatseq/chatseq/store"
)

// TableNames are the four tables of ADR-004/ADR-007.
type TableNames struct {
	Counters    string // chat_counters: chat_id (S)
	Messages    string // messages: chat_id (S), sequence (N)
	Idempotency string // idempotency_keys: chat_id (S), client_message_id (S); TTL on ttl
	Memberships string // chat_memberships: chat_id (S), user_id (S)
}

// Prefixed returns the ADR's table names with prefix in front, so several
// runs (or test binaries) can share one account or DynamoDB Local.
func Prefixed(prefix string) TableNames {
	return TableNames{
		Counters:    prefix + "chat_counters",
		Messages:    prefix + "messages",
		Idempotency: prefix + "idempotency_keys",
		Memberships: prefix + "chat_memberships",
	}
}

// Store implements store.Store on a DynamoDB client. It holds no state of its
// own, so one Store may be shared by any number of goroutines.
type Store struct {
	client *dynamodb.Client
	tables TableNames
	now    func() time.Time // updated_at / created_at / joined_at stamps
}

var _ store.Store = (*Store)(nil)

// New returns a Store on client using tables (see CreateTables).
func New(client *dynamodb.Client, tables TableNames) *Store {
	return &Store{client: client, tables: tables, now: time.Now}
}

// Tables returns the table names the store uses.
func (s *Store) Tables() TableNames { return s.tables }

// Close does nothing: the client's connections belong to whoever made it.
func (s *Store) Close() error { return nil }
