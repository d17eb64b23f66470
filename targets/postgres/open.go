package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/chatseq/chatseq/history"
	pgserver "github.com/chatseq/chatseq/localserver/postgres"
	"github.com/chatseq/chatseq/targets"
)

// Name is the target's name for --target.
const Name = "postgres"

// Contract is what the design promises. Gaps: a sequence taken before
// BEGIN stays consumed when the transaction rolls back. Key reuse: §3.1
// returns the cached response whatever the new content. Events are left to
// the runner: at-least-once (§5) whenever Kafka is on. Event order:
// per-chat, §5's "Strict Ordering per Conversation" and §8's topic
// "partitioned by conversation_id … preserving sequence order for
// consumers". Catch-up: by cursor, as the chat history's clients sync
// (ADR-001 §4). Key scope: sender; §"Compound Uniqueness" scopes keys to
// (key, user_id), so two senders' one key in a chat are two messages, and
// the scope spans chats: §7's clients send each key (a UUID) once, so a run
// sends no key to two chats (ADR-001's per-chat keys would: a run over
// http stating --key-scope client shows what the design does then). Send
// membership: unchecked; the document's send path reads no membership
// (chatseq serve's API refuses a non-member's send before the design).
var Contract = history.Contract{
	Gaps: history.GapsAllowed, KeyReuse: history.KeyReuseReturnOriginal,
	CatchUp: history.CatchUpCursor, EventOrder: history.EventOrderPerChat,
	KeyScope: history.KeyScopeSender, SendMembership: history.SendMembershipUnchecked,
	ReadMembership: history.ReadMembershipUnchecked,
}

// Claims quote the document for the promises the contract states.
var Claims = map[string]string{
	"event_order":           `The Message Service promises "Strict Ordering per Conversation" (§5) on a topic "partitioned by conversation_id … preserving sequence order for consumers" (§8)`,
	"catch_up_completeness": `ADR-001 promises that a client syncing with sequence > last_acked_sequence (§4) "catches up; no lost messages" (Appendix B)`,
}

func init() {
	targets.Register(Name, Open)
	vs := make([]targets.Variant, len(Variants))
	for i, v := range Variants {
		vs[i] = targets.Variant{Name: string(v.Variant), Description: v.Description, CaughtBy: v.CaughtBy}
	}
	targets.RegisterVariants(Name, vs)
}

// Open connects to opts.DSN, or starts a throwaway cluster when it is empty.
func Open(ctx context.Context, opts targets.Options) (*targets.Opened, error) {
	// Only a kept schema in a cluster of the user's outlives this process:
	// a throwaway cluster stops with it, and a schema of its own is
	// another after a restart.
	o := &targets.Opened{Fresh: true, Contract: Contract, Claims: Claims, Topic: Topic, Volatile: opts.DSN == "" || opts.Schema == ""}
	dsn := opts.DSN
	if dsn == "" {
		c, err := pgserver.Start(ctx)
		if err != nil {
			return nil, fmt.Errorf("no --dsn given and a throwaway cluster did not start: %w", err)
		}
		o.OnClose(c.Stop)
		dsn = c.DSN()
		o.Describe = fmt.Sprintf("Message Service (PostgreSQL outbox), throwaway cluster on 127.0.0.1:%d", c.Port())
	} else {
		pc, err := parseDSN(dsn)
		if err != nil {
			return nil, err
		}
		// Never the password.
		o.Describe = fmt.Sprintf("Message Service (PostgreSQL outbox), %s:%d/%s", pc.Host, pc.Port, pc.Database)
	}
	// Each run gets a schema of its own, so even a shared database starts
	// empty (Fresh).
	o.Factory = Factory(Config{DSN: dsn, RelayCrash: -1, Schema: opts.Schema})
	return o, nil
}

// CheckDSN reads a --dsn as Open will, so that one that does not parse is
// refused as bad input before anything runs (pgconn's message shows no
// password).
func CheckDSN(dsn string) error {
	if dsn == "" {
		return nil
	}
	_, err := parseDSN(dsn)
	return err
}

// parseDSN is a --dsn's connection settings, or the error naming the flag.
func parseDSN(dsn string) (*pgconn.Config, error) {
	pc, err := pgconn.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("--dsn: %w", err)
	}
	return pc, nil
}
