package sequencer

import "strings"

// Variant selects the correct core or one deliberately broken behaviour,
// each of which the checker must catch under the named invariant.
type Variant string

const (
	// Correct is ADR-004 as written.
	Correct Variant = ""
	// RacyCounter reads the counter then writes counter+1: no atomic ADD.
	RacyCounter Variant = "racy-counter"
	// AckBeforePersist answers the client, then commits in the background.
	AckBeforePersist Variant = "ack-before-persist"
	// UnconditionalIdempotency puts the idempotency record without
	// attribute_not_exists, so a concurrent retry persists twice.
	UnconditionalIdempotency Variant = "unconditional-idempotency"
	// RetryReallocates answers a retry by allocating again and overwriting
	// the idempotency record instead of returning the cached result.
	RetryReallocates Variant = "retry-reallocates"
)

// BrokenVariant describes a broken variant and the invariant that catches it.
type BrokenVariant struct {
	Variant     Variant
	Description string
	CaughtBy    string // the invariant name the checker must report failing
}

// BrokenVariants lists every deliberately broken behaviour.
var BrokenVariants = []BrokenVariant{
	{RacyCounter, "counter read then written without atomicity (GetItem + PutItem instead of ADD)", "sequence_uniqueness"},
	{AckBeforePersist, "ACK sent before the persist transaction commits", "ack_implies_persistence"},
	{UnconditionalIdempotency, "idempotency record put without attribute_not_exists", "idempotency_guarantee"},
	{RetryReallocates, "retry path allocates a new sequence and overwrites the idempotency record", "idempotency_guarantee"},
}

func (v Variant) valid() bool {
	if v == Correct {
		return true
	}
	for _, b := range BrokenVariants {
		if b.Variant == v {
			return true
		}
	}
	return false
}

// ParseVariant accepts "", "none" or "correct" for the correct core, or a
// broken variant's name.
func ParseVariant(s string) (Variant, bool) {
	if s == "none" || s == "correct" {
		return Correct, true
	}
	v := Variant(s)
	return v, v.valid()
}

// VariantNames lists the broken variants' names, comma separated.
func VariantNames() string {
	names := make([]string, len(BrokenVariants))
	for i, b := range BrokenVariants {
		names[i] = string(b.Variant)
	}
	return strings.Join(names, ", ")
}
