package postgres

import (
	"context"
	"fmt"

	"github.com/chatseq/chatseq/store"
)

// Dump reads the run's final tables: each conversation's sequence row as
// its counter, the messages, and the idempotency records (whose chat is in
// the cached response: the design keys them by (key, user_id) alone).
func (t *target) Dump(ctx context.Context, chats []string) (store.State, error) {
	st := store.State{Read: store.AllTables}
	seen := map[string]bool{}
	rows, err := t.pool.Query(ctx,
		"SELECT conversation_id, last_sequence FROM conversation_sequences WHERE conversation_id = ANY($1) ORDER BY conversation_id", chats)
	if err != nil {
		return st, fmt.Errorf("postgres: reading sequences: %w", err)
	}
	for rows.Next() {
		var c store.Counter
		var v int64
		if err := rows.Scan(&c.Chat, &v); err != nil {
			rows.Close()
			return st, err
		}
		c.Value = uint64(v)
		seen[c.Chat] = true
		st.Counters = append(st.Counters, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return st, err
	}
	for _, c := range chats {
		if !seen[c] {
			st.Counters = append(st.Counters, store.Counter{Chat: c, Missing: true})
		}
	}

	rows, err = t.pool.Query(ctx, `
		SELECT conversation_id, sequence, id, sender_id, client_message_id, content, type, sent_at
		FROM messages WHERE conversation_id = ANY($1) ORDER BY conversation_id, sequence`, chats)
	if err != nil {
		return st, fmt.Errorf("postgres: reading messages: %w", err)
	}
	for rows.Next() {
		var m store.Message
		var seq int64
		if err := rows.Scan(&m.Chat, &seq, &m.MessageID, &m.Sender, &m.Key, &m.Content, &m.ContentType, &m.CreatedAt); err != nil {
			rows.Close()
			return st, err
		}
		m.Seq = uint64(seq)
		st.Messages = append(st.Messages, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return st, err
	}

	rows, err = t.pool.Query(ctx, `
		SELECT key, user_id, payload, created_at, expires_at FROM idempotency_keys
		WHERE payload->>'conversation_id' = ANY($1) ORDER BY payload->>'conversation_id', key, user_id`, chats)
	if err != nil {
		return st, fmt.Errorf("postgres: reading idempotency keys: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r store.IdempotencyRecord
		var resp response
		if err := rows.Scan(&r.Key, &r.Sender, &resp, &r.CreatedAt, &r.ExpiresAt); err != nil {
			return st, err
		}
		r.Chat, r.Seq, r.MessageID = resp.ConversationID, resp.Sequence, resp.MessageID
		st.Idempotency = append(st.Idempotency, r)
	}
	return st, rows.Err()
}
