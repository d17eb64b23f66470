package postgres

import (
	"github.com/chatseq/chatseq/targets"
)

// Variant selects the design as written or a deliberate departure from it.
// The runner passes it as bench.Config.Variant (a string), so these names
// live beside ADR-004's without the sequencer knowing them.
type Variant string

const (
	// AsDesigned is the Message Service design: the sequence is taken
	// before BEGIN, then one transaction writes the message, the outbox
	// event and the idempotency record.
	AsDesigned Variant = ""
	// OutboxOutsideTx writes the outbox event after the commit, as its own
	// statement: the dual write the outbox pattern exists to prevent. A
	// crash (or the database going down) between the two loses the event.
	OutboxOutsideTx Variant = "outbox-outside-tx"
	// MarkBeforePublish has the relay mark a batch processed before it
	// publishes it: a relay crash or a Kafka failure in between loses the
	// events.
	MarkBeforePublish Variant = "mark-before-publish"
	// AckBeforeCommit answers the client once the transaction's statements
	// have run and sends COMMIT afterwards: a server that dies in between
	// (a crash, a kill) leaves the transaction uncommitted, and PostgreSQL
	// rolls back a message its client was told is stored.
	AckBeforeCommit Variant = "ack-before-commit"
	// SequenceInTx takes the sequence inside the transaction (the counter
	// row's update commits or rolls back with the message, and holds the
	// row's lock until then) and has the relay poll by outbox id rather
	// than created_at. Not broken: the alternative chatseq compares the
	// design with.
	SequenceInTx Variant = "sequence-in-tx"
)

// VariantInfo describes a variant and, for a broken one, the invariant that
// must catch it.
type VariantInfo struct {
	Variant     Variant
	Description string
	CaughtBy    string // "" for a correct alternative
}

// Variants lists every variant but the design as written.
var Variants = []VariantInfo{
	{OutboxOutsideTx, "outbox event inserted after the commit, outside the message's transaction", "event_completeness"},
	{MarkBeforePublish, "relay marks events processed before publishing them", "event_completeness"},
	{AckBeforeCommit, "client answered before COMMIT, which is sent afterwards; a server that dies in between loses an acknowledged message", "ack_implies_persistence"},
	{SequenceInTx, "sequence taken inside the transaction and the relay polling by outbox id (alternative, not broken: no gaps, per-conversation events in sequence order)", ""},
}

// ParseVariant accepts "", "none", "correct" or a name of Variants (as
// registered with the targets package).
func ParseVariant(s string) (Variant, error) {
	v, err := targets.ParseVariant(Name, s)
	return Variant(v), err
}
