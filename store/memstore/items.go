package memstore

import (
	"math"
	"time"

	"github.com/chatseq/chatseq/store"
)

// The stored forms leave out what the partition already says (chat id,
// a message's sequence), keep their strings in the table's arena and times
// as Unix nanoseconds: a run keeps every message and key it wrote, and
// pointer-free items are cheaper to hold and to garbage-collect. Times
// round-trip with Equal (not ==): the monotonic reading and location are
// not kept, as DynamoDB keeps neither.

// messageItem is a message without its chat and sequence; its blob holds
// message id, sender, key, content and content type.
type messageItem struct {
	blob      blobRef
	createdAt int64
}

func messageItemOf(m store.Message, a *arena) messageItem {
	fields := [...]string{m.MessageID, m.Sender, m.Key, m.Content, m.ContentType}
	return messageItem{blob: a.put(fields[:]), createdAt: packTime(m.CreatedAt)}
}

func (m messageItem) message(chatID string, seq uint64, a *arena) store.Message {
	var f [5]string
	a.fields(m.blob, f[:])
	return store.Message{
		Chat: chatID, Seq: seq, MessageID: f[0], Sender: f[1], Key: f[2],
		Content: f[3], ContentType: f[4], CreatedAt: unpackTime(m.createdAt),
	}
}

// idempotencyItem is an idempotency record without its chat; its blob
// holds key (first: look-ups compare it), message id, sender and payload
// hash.
type idempotencyItem struct {
	seq                  uint64
	blob                 blobRef
	createdAt, expiresAt int64
}

func idempotencyItemOf(r store.IdempotencyRecord, a *arena) idempotencyItem {
	fields := [...]string{r.Key, r.MessageID, r.Sender, r.PayloadHash}
	return idempotencyItem{
		seq: r.Seq, blob: a.put(fields[:]),
		createdAt: packTime(r.CreatedAt), expiresAt: packTime(r.ExpiresAt),
	}
}

func (r idempotencyItem) record(chatID string, a *arena) store.IdempotencyRecord {
	var f [4]string
	a.fields(r.blob, f[:])
	return store.IdempotencyRecord{
		Chat: chatID, Key: f[0], Seq: r.seq, MessageID: f[1], Sender: f[2],
		PayloadHash: f[3], CreatedAt: unpackTime(r.createdAt), ExpiresAt: unpackTime(r.expiresAt),
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
