package memstore

import (
	"math"
	"time"

	"github.com/chatseq/chatseq/store"
)

// The stored forms leave out what the partition already says (chat id,
// a message's sequence) and keep times as Unix nanoseconds: a run keeps every
// message and key it wrote, and pointer-free fields make them cheaper to
// hold and to garbage-collect. Times round-trip with Equal (not ==): the
// monotonic reading and location are not kept, as DynamoDB keeps neither.

// messageItem is a message without its chat and sequence.
type messageItem struct {
	messageID, sender, key, content, contentType string
	createdAt                                    int64
}

func messageItemOf(m store.Message) messageItem {
	return messageItem{
		messageID: m.MessageID, sender: m.Sender, key: m.Key, content: m.Content,
		contentType: m.ContentType, createdAt: packTime(m.CreatedAt),
	}
}

func (m messageItem) message(chatID string, seq uint64) store.Message {
	return store.Message{
		Chat: chatID, Seq: seq, MessageID: m.messageID, Sender: m.sender, Key: m.key,
		Content: m.content, ContentType: m.contentType, CreatedAt: unpackTime(m.createdAt),
	}
}

// idempotencyItem is an idempotency record without its chat.
type idempotencyItem struct {
	seq                                 uint64
	key, messageID, sender, payloadHash string
	createdAt, expiresAt                int64
}

func idempotencyItemOf(r store.IdempotencyRecord) idempotencyItem {
	return idempotencyItem{
		seq: r.Seq, key: r.Key, messageID: r.MessageID, sender: r.Sender, payloadHash: r.PayloadHash,
		createdAt: packTime(r.CreatedAt), expiresAt: packTime(r.ExpiresAt),
	}
}

func (r idempotencyItem) record(chatID string) store.IdempotencyRecord {
	return store.IdempotencyRecord{
		Chat: chatID, Key: r.key, Seq: r.seq, MessageID: r.messageID, Sender: r.sender,
		PayloadHash: r.payloadHash, CreatedAt: unpackTime(r.createdAt), ExpiresAt: unpackTime(r.expiresAt),
	}
}

// zeroTime stands for time.Time{}, whose Unix nanoseconds do not fit.
const zeroTime = math.MinInt64

// packTime keeps t as Unix nanoseconds (years 1678 to 2262; the core's
// clock is always inside them).
func packTime(t time.Time) int64 {
	if t.IsZero() {
		return zeroTime
	}
	return t.UnixNano()
}

func unpackTime(n int64) time.Time {
	if n == zeroTime {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}
