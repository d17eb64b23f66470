package postgres

import (
	"context"

	"github.com/chatseq/chatseq/gateway"
)

// Members lists chat's members, for the push channel's routing of a chat
// created before the server started.
func (t *target) Members(ctx context.Context, chat string) ([]string, error) {
	rows, err := t.pool.Query(ctx, "SELECT user_id FROM conversation_members WHERE conversation_id = $1 ORDER BY user_id", chat)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var u string
		if err := rows.Scan(&u); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// RecordAck raises (chat, user)'s delivery_state to seq in one statement;
// a lower or repeated ack leaves it (gateway.DeliveryStore).
func (t *target) RecordAck(ctx context.Context, chat, user string, seq uint64) (uint64, error) {
	var stored int64
	err := t.pool.QueryRow(ctx, `
		INSERT INTO delivery_state (chat_id, user_id, last_acked_sequence) VALUES ($1, $2, $3)
		ON CONFLICT (chat_id, user_id) DO UPDATE
			SET last_acked_sequence = GREATEST(delivery_state.last_acked_sequence, EXCLUDED.last_acked_sequence),
			    updated_at = CASE WHEN EXCLUDED.last_acked_sequence > delivery_state.last_acked_sequence THEN now() ELSE delivery_state.updated_at END
		RETURNING last_acked_sequence`, chat, user, int64(seq)).Scan(&stored)
	return uint64(stored), err
}

// DeliveryStates reads chat's delivery_state rows by user.
func (t *target) DeliveryStates(ctx context.Context, chat string) ([]gateway.DeliveryState, error) {
	rows, err := t.pool.Query(ctx, "SELECT user_id, last_acked_sequence FROM delivery_state WHERE chat_id = $1 ORDER BY user_id", chat)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []gateway.DeliveryState
	for rows.Next() {
		var u string
		var seq int64
		if err := rows.Scan(&u, &seq); err != nil {
			return nil, err
		}
		out = append(out, gateway.DeliveryState{ChatID: chat, UserID: u, LastAckedSequence: uint64(seq)})
	}
	return out, rows.Err()
}

var _ gateway.DeliveryStore = (*target)(nil)
