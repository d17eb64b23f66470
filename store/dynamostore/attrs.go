package dynamostore

import (
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/chatseq/chatseq/store"
)

// Attribute names, as ADR-004 spells them.
const (
	attrChatID          = "chat_id"
	attrUserID          = "user_id"
	attrSequenceCounter = "sequence_counter"
	attrSequence        = "sequence"
	attrMessageID       = "message_id"
	attrSenderID        = "sender_id"
	attrClientMessageID = "client_message_id"
	attrContent         = "content"
	attrContentType     = "content_type"
	attrCreatedAt       = "created_at"
	attrUpdatedAt       = "updated_at"
	attrJoinedAt        = "joined_at"
	attrTTL             = "ttl"
	attrPayloadHash     = "payload_hash"
	// The recovery procedure's audit trail on a recreated counter.
	attrRecoveredAt           = "recovered_at"
	attrRecoveredFromSequence = "recovered_from_sequence"
)

// IdempotencyTTL is how long an idempotency key lives when the caller gives no
// expiry (ADR-004: ttl = now + 7 days).
const IdempotencyTTL = 7 * 24 * time.Hour

// timeLayout is ISO 8601 in UTC with nanoseconds, so times written by the
// store read back equal (time.Time.Equal) to what the caller gave.
const timeLayout = time.RFC3339Nano

type item = map[string]types.AttributeValue

func str(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func num(v uint64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatUint(v, 10)}
}
func numInt(v int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}
func stamp(t time.Time) types.AttributeValue { return str(t.UTC().Format(timeLayout)) }

func counterKey(chat string) item { return item{attrChatID: str(chat)} }

// counterItem is a whole counter item at value, created and updated now.
func counterItem(chat string, value uint64, now types.AttributeValue) item {
	return item{
		attrChatID:          str(chat),
		attrSequenceCounter: num(value),
		attrCreatedAt:       now,
		attrUpdatedAt:       now,
	}
}

func membershipItem(chat, user string, now types.AttributeValue) item {
	return item{attrChatID: str(chat), attrUserID: str(user), attrJoinedAt: now}
}

func messageItem(m store.Message) item {
	return item{
		attrChatID:          str(m.Chat),
		attrSequence:        num(m.Seq),
		attrMessageID:       str(m.MessageID),
		attrSenderID:        str(m.Sender),
		attrClientMessageID: str(m.Key),
		attrContent:         str(m.Content),
		attrContentType:     str(m.ContentType),
		attrCreatedAt:       stamp(m.CreatedAt),
	}
}

func idempotencyItem(r store.IdempotencyRecord) item {
	expires := r.ExpiresAt
	if expires.IsZero() {
		// DynamoDB's TTL needs a value, or the key would live forever.
		base := r.CreatedAt
		if base.IsZero() {
			base = time.Now()
		}
		expires = base.Add(IdempotencyTTL)
	}
	return item{
		attrChatID:          str(r.Chat),
		attrClientMessageID: str(r.Key),
		attrMessageID:       str(r.MessageID),
		attrSequence:        num(r.Seq),
		attrSenderID:        str(r.Sender),
		attrPayloadHash:     str(r.PayloadHash),
		attrCreatedAt:       stamp(r.CreatedAt),
		attrTTL:             numInt(expires.Unix()), // epoch seconds, as TTL requires
	}
}

// itemReader decodes one item, remembering the first problem so decoders can
// read every field and check once.
type itemReader struct {
	it  item
	err error
}

func (r *itemReader) fail(name, format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("dynamostore: malformed item: attribute %s: %s", name, fmt.Sprintf(format, args...))
	}
}

func (r *itemReader) str(name string) string {
	v, ok := r.it[name]
	if !ok {
		r.fail(name, "missing")
		return ""
	}
	s, ok := v.(*types.AttributeValueMemberS)
	if !ok {
		r.fail(name, "want S, got %T", v)
		return ""
	}
	return s.Value
}

// optStr reads an attribute chatseq adds beyond ADR-004's item (sender_id and
// payload_hash on idempotency keys), so items written by other code still read.
func (r *itemReader) optStr(name string) string {
	if _, ok := r.it[name]; !ok {
		return ""
	}
	return r.str(name)
}

func (r *itemReader) uint(name string) uint64 {
	raw := r.number(name)
	if raw == "" {
		return 0
	}
	n, err := strconv.ParseUint(raw, 10, 64)
	if err != nil {
		r.fail(name, "not a uint64: %q", raw)
	}
	return n
}

// optEpoch reads a TTL attribute; an item without one never expires.
func (r *itemReader) optEpoch(name string) time.Time {
	if _, ok := r.it[name]; !ok {
		return time.Time{}
	}
	raw := r.number(name)
	if raw == "" {
		return time.Time{}
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		r.fail(name, "not epoch seconds: %q", raw)
	}
	return time.Unix(n, 0).UTC()
}

func (r *itemReader) number(name string) string {
	v, ok := r.it[name]
	if !ok {
		r.fail(name, "missing")
		return ""
	}
	n, ok := v.(*types.AttributeValueMemberN)
	if !ok {
		r.fail(name, "want N, got %T", v)
		return ""
	}
	return n.Value
}

func (r *itemReader) time(name string) time.Time {
	raw := r.str(name)
	if raw == "" {
		return time.Time{}
	}
	t, err := time.Parse(timeLayout, raw)
	if err != nil {
		r.fail(name, "not ISO 8601: %q", raw)
	}
	return t
}

func decodeMessage(it item) (store.Message, error) {
	r := itemReader{it: it}
	m := store.Message{
		Chat:        r.str(attrChatID),
		Seq:         r.uint(attrSequence),
		MessageID:   r.str(attrMessageID),
		Sender:      r.str(attrSenderID),
		Key:         r.str(attrClientMessageID),
		Content:     r.str(attrContent),
		ContentType: r.str(attrContentType),
		CreatedAt:   r.time(attrCreatedAt),
	}
	return m, r.err
}

func decodeIdempotency(it item) (store.IdempotencyRecord, error) {
	r := itemReader{it: it}
	rec := store.IdempotencyRecord{
		Chat:        r.str(attrChatID),
		Key:         r.str(attrClientMessageID),
		Seq:         r.uint(attrSequence),
		MessageID:   r.str(attrMessageID),
		Sender:      r.optStr(attrSenderID),
		PayloadHash: r.optStr(attrPayloadHash),
		CreatedAt:   r.time(attrCreatedAt),
		ExpiresAt:   r.optEpoch(attrTTL),
	}
	return rec, r.err
}

func decodeCounter(chat string, it item) (store.Counter, error) {
	if it == nil {
		return store.Counter{Chat: chat, Missing: true}, nil
	}
	r := itemReader{it: it}
	c := store.Counter{Chat: chat, Value: r.uint(attrSequenceCounter)}
	return c, r.err
}
