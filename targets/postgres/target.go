// Package postgres is the Message Service design (message-service-postgres-
// outbox.md) as a chatseq target: PostgreSQL with a per-conversation
// sequence taken before the transaction, one transaction writing the
// message, its outbox event and the idempotency record, and a relay that
// polls the outbox, publishes to Kafka with acks=all and marks rows
// processed. Faults map onto the design's failure table: Kafka down, relay
// crash between publish and mark, database down, server crashes around the
// commit.
package postgres

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/store"
	tg "github.com/chatseq/chatseq/target"
)

// Config is how a postgres target connects and behaves.
type Config struct {
	DSN string
	// IdempotencyTTL is idempotency_keys.expires_at - created_at; the
	// design says only "short-lived", so 24h (the consistency strategy's
	// default) unless set.
	IdempotencyTTL time.Duration
	// RelayCrash is the probability that the relay crashes between
	// publishing a batch and marking it; negative: the run's
	// --publish-fail rate (its per-message publish failure has no other
	// meaning here: the client is answered before anything is published).
	RelayCrash float64
	// KeepSchema leaves the run's schema in the database after Close, for
	// inspection.
	KeepSchema bool
	// Schema, when set, is the schema every run uses, created when
	// missing and always kept: a server restarted over it (chatseq serve
	// under a process nemesis) finds what it wrote before.
	Schema string
}

// target is one run's Message Service over its own schema.
type target struct {
	pool    *pgxpool.Pool
	schema  string
	cfg     Config
	variant Variant
	gate    *gate
	relay   *relay // nil when Kafka is off
	// background holds the AckBeforeCommit variant's COMMITs, sent after
	// their clients were answered.
	background sync.WaitGroup
}

// Factory builds a target per run: a fresh schema, a pool, and the relay
// when the run has Kafka.
func Factory(base Config) tg.Factory {
	return func(ctx context.Context, env tg.Env) (tg.Target, error) {
		// Each run fills in its own copy: a factory shared by several runs
		// (chatseq run's target cache) must not keep one run's defaults,
		// such as its relay crash rate, for the next.
		cfg := base
		variant, err := ParseVariant(string(env.Variant))
		if err != nil {
			return nil, err
		}
		if cfg.IdempotencyTTL <= 0 {
			cfg.IdempotencyTTL = 24 * time.Hour
		}
		if cfg.RelayCrash < 0 {
			cfg.RelayCrash = env.PublishFail
		}
		schema := newSchemaName()
		if cfg.Schema != "" {
			schema, cfg.KeepSchema = cfg.Schema, true
		}
		pool, err := openPool(ctx, cfg.DSN, schema, env.Writers)
		if err != nil {
			return nil, err
		}
		if err := ensureSchema(ctx, pool, schema); err != nil {
			pool.Close()
			return nil, err
		}
		t := &target{pool: pool, schema: schema, cfg: cfg, variant: variant, gate: newGate(env)}
		if env.Publisher != nil {
			t.relay = startRelay(t, env.Publisher, cfg.RelayCrash, env.Seed)
		}
		return t, nil
	}
}

// openPool connects with the run's schema first on the search path. The
// pool is sized for every writer, its concurrent twin and the relay, so
// no send waits for a connection (the design's PgBouncer would cap this).
func openPool(ctx context.Context, dsn, schema string, writers int) (*pgxpool.Pool, error) {
	pc, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: bad DSN: %w", err)
	}
	pc.MaxConns = int32(max(8, 2*writers+4))
	pc.ConnConfig.RuntimeParams["search_path"] = schema
	// A connection that broke while the database was down is dropped on
	// its next use; health checks find idle broken ones sooner.
	pc.HealthCheckPeriod = 500 * time.Millisecond
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("postgres: connecting: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: connecting: %w", err)
	}
	return pool, nil
}

// CreateChat creates the conversation's sequence row at 0 and, in the
// same statement, its members. The design's sends check no membership;
// chatseq serve lets only members read a chat (IsMember).
func (t *target) CreateChat(ctx context.Context, chat string, members []string) error {
	_, err := t.pool.Exec(ctx, `
		WITH c AS (INSERT INTO conversation_sequences (conversation_id, last_sequence) VALUES ($1, 0) RETURNING conversation_id)
		INSERT INTO conversation_members (conversation_id, user_id)
		SELECT c.conversation_id, m FROM c, unnest($2::text[]) AS m ON CONFLICT DO NOTHING`, chat, members)
	if uniqueViolation(err) != "" {
		return store.ErrChatExists
	}
	return err
}

// IsMember reports whether user is one of chat's members.
func (t *target) IsMember(ctx context.Context, chat, user string) (bool, error) {
	var member bool
	err := t.pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM conversation_members WHERE conversation_id = $1 AND user_id = $2)", chat, user).Scan(&member)
	return member, err
}

// SetCounter puts the conversation's last sequence at v.
func (t *target) SetCounter(ctx context.Context, chat string, v uint64) error {
	_, err := t.pool.Exec(ctx, "UPDATE conversation_sequences SET last_sequence = $2 WHERE conversation_id = $1", chat, int64(v))
	return err
}

// DeleteCounter removes the conversation's sequence row; later sends fail
// with counter_missing.
func (t *target) DeleteCounter(ctx context.Context, chat string) error {
	_, err := t.pool.Exec(ctx, "DELETE FROM conversation_sequences WHERE conversation_id = $1", chat)
	return err
}

// Sync reads the conversation after a sequence, ascending (ADR-001 §4).
func (t *target) Sync(ctx context.Context, chat string, after uint64, limit int) ([]store.Message, error) {
	if err := t.gate.enter(ctx); err != nil {
		return nil, failRead(err)
	}
	rows, err := t.pool.Query(ctx, `
		SELECT sequence, id, sender_id, client_message_id, content, type, sent_at
		FROM messages WHERE conversation_id = $1 AND sequence > $2
		ORDER BY sequence LIMIT $3`, chat, int64(after), limit)
	if err != nil {
		return nil, failRead(err)
	}
	defer rows.Close()
	var out []store.Message
	for rows.Next() {
		m := store.Message{Chat: chat}
		var seq int64
		if err := rows.Scan(&seq, &m.MessageID, &m.Sender, &m.Key, &m.Content, &m.ContentType, &m.CreatedAt); err != nil {
			return nil, failRead(err)
		}
		m.Seq = uint64(seq)
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, failRead(err)
	}
	return out, nil
}

// Settle waits for COMMITs sent after their answers (AckBeforeCommit)
// and until the relay has drained the outbox: every event the service
// committed is on the topic before the runner reads it back.
func (t *target) Settle(ctx context.Context) error {
	t.background.Wait()
	if t.relay == nil {
		return nil
	}
	return t.relay.drain(ctx)
}

// Close waits for late COMMITs, stops the relay, drops the run's schema
// (unless kept) and closes the pool.
func (t *target) Close() error {
	t.background.Wait()
	if t.relay != nil {
		t.relay.stop()
	}
	var err error
	if !t.cfg.KeepSchema {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err = dropSchema(ctx, t.pool, t.schema)
		cancel()
	}
	t.pool.Close()
	return err
}

var _ tg.Target = (*target)(nil)

// persistErr builds the *sequencer.Error the runner records.
func persistErr(code string, definite bool, err error) error {
	return &sequencer.Error{Code: code, Definite: definite, Err: err}
}
