package storetest

import (
	"fmt"
	"strings"
	"time"

	"github.com/chatseq/chatseq/store"
)

// baseTime has nanoseconds so a store that drops precision from created_at
// is caught.
var baseTime = time.Date(2026, 1, 30, 12, 34, 56, 123456789, time.UTC)

// message builds a message item whose fields all differ from one another and
// from other messages, so a mixed-up field shows.
func message(chat string, seq uint64, key string) store.Message {
	return store.Message{
		Chat:        chat,
		Seq:         seq,
		MessageID:   fmt.Sprintf("msg_%s_%d", key, seq),
		Sender:      "user-" + key,
		Key:         key,
		Content:     fmt.Sprintf("content of %s at %d", key, seq),
		ContentType: "text/plain",
		CreatedAt:   baseTime.Add(time.Duration(seq) * time.Millisecond),
	}
}

// record builds the idempotency record that goes with message(chat, seq, key).
func record(chat string, seq uint64, key string) store.IdempotencyRecord {
	m := message(chat, seq, key)
	return store.IdempotencyRecord{
		Chat:        chat,
		Key:         key,
		Seq:         seq,
		MessageID:   m.MessageID,
		Sender:      m.Sender,
		PayloadHash: "sha256:" + key,
		CreatedAt:   m.CreatedAt,
		// Not on a whole second, like a real now+7d: stores keep at least
		// whole seconds (DynamoDB's ttl is epoch seconds). Far in the
		// future, not created+7d: baseTime is long past, and an expired
		// record is one DynamoDB Local's TTL may delete while a test reads
		// it (a record missing from Dump, once in 23 CI runs).
		ExpiresAt: m.CreatedAt.AddDate(100, 0, 7),
	}
}

// persistItems is ADR-004 step 4's transaction: the conditional idempotency
// put and the unconditional message put.
func persistItems(chat string, seq uint64, key string) []store.TxItem {
	rec, msg := record(chat, seq, key), message(chat, seq, key)
	return []store.TxItem{
		{PutIdempotency: &rec, Condition: store.IfAbsent},
		{PutMessage: &msg},
	}
}

// diffMessage lists the fields in which got differs from want.
func diffMessage(got, want store.Message) string {
	var d diffs
	d.str("chat_id", got.Chat, want.Chat)
	d.uint("sequence", got.Seq, want.Seq)
	d.str("message_id", got.MessageID, want.MessageID)
	d.str("sender_id", got.Sender, want.Sender)
	d.str("client_message_id", got.Key, want.Key)
	d.str("content", got.Content, want.Content)
	d.str("content_type", got.ContentType, want.ContentType)
	d.time("created_at", got.CreatedAt, want.CreatedAt, 0)
	return d.String()
}

// diffRecord lists the fields in which got differs from want; the expiry is
// compared to the second, the precision of DynamoDB's ttl attribute.
func diffRecord(got, want store.IdempotencyRecord) string {
	var d diffs
	d.str("chat_id", got.Chat, want.Chat)
	d.str("client_message_id", got.Key, want.Key)
	d.uint("sequence", got.Seq, want.Seq)
	d.str("message_id", got.MessageID, want.MessageID)
	d.str("sender_id", got.Sender, want.Sender)
	d.str("payload_hash", got.PayloadHash, want.PayloadHash)
	d.time("created_at", got.CreatedAt, want.CreatedAt, 0)
	d.time("ttl", got.ExpiresAt, want.ExpiresAt, time.Second)
	return d.String()
}

type diffs []string

func (d *diffs) str(name, got, want string) {
	if got != want {
		*d = append(*d, fmt.Sprintf("%s = %q, want %q", name, got, want))
	}
}

func (d *diffs) uint(name string, got, want uint64) {
	if got != want {
		*d = append(*d, fmt.Sprintf("%s = %d, want %d", name, got, want))
	}
}

func (d *diffs) time(name string, got, want time.Time, precision time.Duration) {
	if precision > 0 {
		got, want = got.Truncate(precision), want.Truncate(precision)
	}
	if !got.Equal(want) {
		*d = append(*d, fmt.Sprintf("%s = %s, want %s", name, got.Format(time.RFC3339Nano), want.Format(time.RFC3339Nano)))
	}
}

func (d diffs) String() string { return strings.Join(d, "; ") }

// seqs lists the sequences of msgs in order, for messages that say which
// items came back.
func seqs(msgs []store.Message) []uint64 {
	out := make([]uint64, len(msgs))
	for i, m := range msgs {
		out[i] = m.Seq
	}
	return out
}
