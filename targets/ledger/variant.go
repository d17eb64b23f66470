package ledger

import (
	"github.com/chatseq/chatseq/targets"
)

// Variant selects the design as chatseq runs it or a deliberate departure.
// The runner passes it as bench.Config.Variant (a string).
type Variant string

const (
	// AsDesigned is the ADR with the one addition it needs to keep its
	// promise: the state machine, not only the leader's cache, remembers
	// idempotency keys, so a key is applied once however many times it is
	// proposed.
	AsDesigned Variant = ""
	// LeaderCacheOnly is the ADR's steps to the letter: the leader's
	// in-memory cache is the only idempotency check and the state machine
	// applies every entry as a new write. Two concurrent sends of one key
	// both miss the cache, and a retry after a failover meets a new
	// leader's empty cache: the ledger double-applies.
	LeaderCacheOnly Variant = "leader-cache-only"
	// ProposeTimeSequence has the leader assign the sequence before
	// proposing (from its own counter) instead of the state machine at
	// apply time: a proposal that never commits leaves a gap, and two
	// leaders across a failover hand out the same sequence.
	ProposeTimeSequence Variant = "propose-time-sequence"
)

// VariantInfo describes a broken variant and the invariant that must catch
// it.
type VariantInfo struct {
	Variant     Variant
	Description string
	CaughtBy    string
}

// Variants lists the broken variants.
var Variants = []VariantInfo{
	{LeaderCacheOnly, "idempotency checked only in the leader's cache, not at apply time", "idempotency_guarantee"},
	{ProposeTimeSequence, "sequence assigned by the leader at propose time instead of by the state machine at apply time", "gapless"},
}

// ParseVariant accepts "", "none", "correct" or a name of Variants (as
// registered with the targets package).
func ParseVariant(s string) (Variant, error) {
	v, err := targets.ParseVariant(Name, s)
	return Variant(v), err
}
