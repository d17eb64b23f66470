package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// schemaDDL is the Message Service data model (§2) plus the one table the
// design leaves unnamed: conversation_sequences, the per-conversation
// counter that step 2 ("requests the next monotonic sequence") draws from.
// messages.client_message_id is an addition so the final state can name
// each message's idempotency key; the design keeps keys only in
// idempotency_keys. conversation_members serves chatseq serve's read
// check (only members sync a chat); the design's send path reads none.
const schemaDDL = membersDDL + `
CREATE TABLE conversation_sequences (
	conversation_id text PRIMARY KEY,
	last_sequence   bigint NOT NULL
);

CREATE TABLE messages (
	id                text PRIMARY KEY,
	conversation_id   text NOT NULL,
	sender_id         text NOT NULL,
	sequence          bigint NOT NULL,
	type              text NOT NULL,
	content           text NOT NULL,
	metadata          jsonb,
	client_message_id text NOT NULL,
	sent_at           timestamptz NOT NULL,
	deleted_at        timestamptz,
	UNIQUE (conversation_id, sequence)
);

CREATE TABLE outbox_events (
	id             bigserial PRIMARY KEY,
	aggregate_type text NOT NULL,
	aggregate_id   text NOT NULL,
	event_type     text NOT NULL,
	payload        bytea NOT NULL,
	processed_at   timestamptz,
	created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX outbox_events_unprocessed ON outbox_events (created_at) WHERE processed_at IS NULL;

CREATE TABLE idempotency_keys (
	key        text NOT NULL,
	user_id    text NOT NULL,
	payload    jsonb NOT NULL,
	created_at timestamptz NOT NULL,
	expires_at timestamptz NOT NULL,
	PRIMARY KEY (key, user_id)
);
`

// membersDDL is created in a kept schema of an older chatseq too. It
// holds chatseq serve's tables beside the design's: the members (its read
// check and push routing) and ADR-001 §5's delivery_state (the push
// channel's acks).
const membersDDL = `
CREATE TABLE IF NOT EXISTS conversation_members (
	conversation_id text NOT NULL,
	user_id         text NOT NULL,
	PRIMARY KEY (conversation_id, user_id)
);
CREATE TABLE IF NOT EXISTS delivery_state (
	chat_id             text NOT NULL,
	user_id             text NOT NULL,
	last_acked_sequence bigint NOT NULL,
	updated_at          timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (chat_id, user_id)
);
`

// newSchemaName names a schema of its own for one run, so runs sharing a
// database (--dsn) never see each other's rows: a relay must not publish
// another run's outbox into this run's topic.
func newSchemaName() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "chatseq_" + hex.EncodeToString(b[:])
}

// createSchema makes the run's schema and tables.
func createSchema(ctx context.Context, pool *pgxpool.Pool, schema string) error {
	if _, err := pool.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
		return fmt.Errorf("postgres: creating schema %s: %w", schema, err)
	}
	if _, err := pool.Exec(ctx, schemaDDL); err != nil {
		return fmt.Errorf("postgres: creating tables in %s: %w", schema, err)
	}
	return nil
}

// ensureSchema creates the schema unless it exists already (a kept one).
func ensureSchema(ctx context.Context, pool *pgxpool.Pool, schema string) error {
	var exists bool
	if err := pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM information_schema.schemata WHERE schema_name = $1)", schema).Scan(&exists); err != nil {
		return fmt.Errorf("postgres: looking for schema %s: %w", schema, err)
	}
	if exists {
		if _, err := pool.Exec(ctx, membersDDL); err != nil {
			return fmt.Errorf("postgres: adding conversation_members and delivery_state to %s: %w", schema, err)
		}
		return nil
	}
	return createSchema(ctx, pool, schema)
}

// dropSchema removes the run's schema and everything in it.
func dropSchema(ctx context.Context, pool *pgxpool.Pool, schema string) error {
	_, err := pool.Exec(ctx, "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
	return err
}
