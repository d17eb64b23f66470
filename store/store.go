// Package store defines the item operations the sequencing core needs, shaped
// on DynamoDB's API (atomic ADD with a condition, conditional puts, and
// all-or-nothing transactions whose cancellation names a reason per item), so
// that the embedded store and a DynamoDB store are interchangeable.
package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Message is one item of the messages table, keyed by (Chat, Seq).
type Message struct {
	Chat        string
	Seq         uint64
	MessageID   string
	Sender      string
	Key         string // client_message_id
	Content     string
	ContentType string
	CreatedAt   time.Time
	// ContentUnknown: the reader did not see the message's content (an
	// --api mapping without a content path, a page that gave none), so
	// an empty Content is not what the service holds.
	ContentUnknown bool
}

// IdempotencyRecord is one item of the idempotency_keys table, keyed by
// (Chat, Key). PayloadHash lets a target tell a retry from a reused key.
type IdempotencyRecord struct {
	Chat        string
	Key         string
	Seq         uint64
	MessageID   string
	Sender      string
	PayloadHash string
	CreatedAt   time.Time
	ExpiresAt   time.Time // DynamoDB's ttl attribute
}

// Counter is one item of the chat_counters table.
type Counter struct {
	Chat    string
	Value   uint64 // sequence_counter: the last allocated sequence
	Missing bool   // the item does not exist
}

// Condition guards one write, like a DynamoDB ConditionExpression.
type Condition uint8

const (
	// Unconditional writes overwrite whatever is there (a plain Put).
	Unconditional Condition = iota
	// IfAbsent is attribute_not_exists on the item's key.
	IfAbsent
	// IfCounterEquals is "sequence_counter = :expected" (optimistic allocation).
	IfCounterEquals
)

// TxItem is one element of a TransactWriteItems call: exactly one of the
// pointers is set.
type TxItem struct {
	PutIdempotency *IdempotencyRecord
	PutMessage     *Message
	PutCounter     *Counter // Value is the value to set
	Condition      Condition
	Expected       uint64 // for IfCounterEquals
}

// CancelReason codes, as DynamoDB reports them per transaction item.
const (
	ReasonNone                   = "None"
	ReasonConditionalCheckFailed = "ConditionalCheckFailed"
	ReasonTransactionConflict    = "TransactionConflict"
	ReasonValidationError        = "ValidationError"
)

// TransactionCanceledError says a transaction wrote nothing, with one reason
// per item in request order.
type TransactionCanceledError struct {
	Reasons []string
}

func (e *TransactionCanceledError) Error() string {
	return "transaction canceled, reasons [" + strings.Join(e.Reasons, ", ") + "]"
}

// ConditionFailedAt reports whether item i's condition failed.
func (e *TransactionCanceledError) ConditionFailedAt(i int) bool {
	return i < len(e.Reasons) && e.Reasons[i] == ReasonConditionalCheckFailed
}

var (
	// ErrCounterMissing: the counter item does not exist (ADR-004 step 3's
	// attribute_exists condition failed). A correctness incident.
	ErrCounterMissing = errors.New("counter_missing")
	// ErrConditionFailed: a single-item conditional write failed.
	ErrConditionFailed = errors.New("conditional check failed")
	// ErrChatExists: CreateChat found the chat's counter already there.
	ErrChatExists = errors.New("chat already exists")
)

// UnknownOutcomeError wraps a failure after which the write may or may not
// have been applied (a timeout, a 5xx, a dropped connection): histories record
// it as info, never as fail.
type UnknownOutcomeError struct {
	Code string // short machine code for the history, e.g. "timeout"
	Err  error
}

func (e *UnknownOutcomeError) Error() string { return fmt.Sprintf("%s: %v", e.Code, e.Err) }
func (e *UnknownOutcomeError) Unwrap() error { return e.Err }

// Query selects messages of one chat by sequence.
type Query struct {
	Chat       string
	After      uint64 // sequence > After
	Limit      int    // 0 means no limit
	Descending bool   // ScanIndexForward=false
}

// State is what a store holds for some chats, read after a run.
type State struct {
	Counters    []Counter
	Messages    []Message
	Idempotency []IdempotencyRecord
	// Read says which tables were read, empty ones included: a history
	// tells "read and empty" (every message lost) from "not read".
	Read Tables
}

// Tables is a set of the tables a read-back read.
type Tables uint8

const (
	CountersTable Tables = 1 << iota
	MessagesTable
	IdempotencyTable
	// AllTables: a store that reads back counters, messages and
	// idempotency records.
	AllTables = CountersTable | MessagesTable | IdempotencyTable
)

// Store is the sequencing core's view of its tables.
type Store interface {
	// CreateChat puts the counter at 0 and the memberships in one transaction;
	// ErrChatExists if the counter is already there.
	CreateChat(ctx context.Context, chat string, members []string) error
	// GetIdempotency reads (chat, key); consistent=false allows a stale read.
	GetIdempotency(ctx context.Context, chat, key string, consistent bool) (IdempotencyRecord, bool, error)
	// IsMember is a consistent read of chat_memberships.
	IsMember(ctx context.Context, chat, user string) (bool, error)
	// IncrementCounter is ADD sequence_counter 1 with
	// attribute_exists(sequence_counter), returning UPDATED_NEW;
	// ErrCounterMissing when the counter is absent.
	IncrementCounter(ctx context.Context, chat string) (uint64, error)
	// GetCounter reads the counter item.
	GetCounter(ctx context.Context, chat string, consistent bool) (Counter, error)
	// PutCounter writes the counter item; with IfAbsent it fails with
	// ErrConditionFailed when one exists.
	PutCounter(ctx context.Context, c Counter, cond Condition) error
	// DeleteCounter removes the counter item (drills only).
	DeleteCounter(ctx context.Context, chat string) error
	// TransactWrite applies all items or none; a failed condition gives
	// *TransactionCanceledError. It keeps no pointer from items after it
	// returns (callers reuse their storage).
	TransactWrite(ctx context.Context, items []TxItem) error
	// QueryMessages returns messages of q.Chat with sequence > q.After.
	QueryMessages(ctx context.Context, q Query) ([]Message, error)
	// Dump reads the final state of the given chats.
	Dump(ctx context.Context, chats []string) (State, error)
	// Close releases the store's resources.
	Close() error
}
