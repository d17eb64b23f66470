package sequencer

import (
	"fmt"
	"slices"
	"strings"
)

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
	// SkipMembership leaves out step 2: a non-member's send is stored.
	SkipMembership Variant = "skip-membership"
	// SyncWatermark is not broken: syncs serve only below the lowest
	// sequence still being committed (watermark.go).
	SyncWatermark Variant = "sync-watermark"
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
	{SkipMembership, "membership read (step 2) left out: a send from a user not a member of the chat is stored", "send_authorization"},
}

// Alternatives are variants that are not broken: a change to the design
// that keeps a promise the design as written breaks. CaughtBy is empty.
var Alternatives = []BrokenVariant{
	{SyncWatermark, "sync serves only below the chat's lowest sequence still being committed, and an ACK waits until its sequence is below it (alternative, not broken: catch-up clients receive every message, ADR-001 §4)", ""},
}

func (v Variant) valid() bool {
	if v == Correct {
		return true
	}
	for _, b := range slices.Concat(BrokenVariants, Alternatives) {
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
	var names []string
	for _, b := range slices.Concat(BrokenVariants, Alternatives) {
		names = append(names, string(b.Variant))
	}
	return strings.Join(names, ", ")
}

// switchable are the variants a run may switch on and off while it goes
// (a schedule's variant_on): each changes only what a persist does at the
// step it breaks, asked at that step. SyncWatermark keeps state across
// operations from the core's start, so it is not.
var switchable = []Variant{RacyCounter, AckBeforePersist, UnconditionalIdempotency, RetryReallocates}

// SwitchableNames lists the variants a schedule's variant_on may name.
func SwitchableNames() string {
	var names []string
	for _, s := range switchable {
		names = append(names, string(s))
	}
	return strings.Join(names, ", ")
}

// CheckSwitchable says why v cannot be switched on at run time, or nil.
func (v Variant) CheckSwitchable() error {
	if slices.Contains(switchable, v) {
		return nil
	}
	return fmt.Errorf("variant %q cannot be switched on while a run goes (those that can: %s)", v, SwitchableNames())
}

// CheckStrategy reports an error when v's broken behaviour does not exist
// under strategy s, so that a run would be a correct core labelled broken:
// a mutant the checker could never catch. racy-counter replaces two-phase
// allocation's atomic ADD, and ack-before-persist answers between its
// allocation and its commit; optimistic allocation (occ) has neither step,
// its allocation being the commit itself.
func (v Variant) CheckStrategy(s Strategy) error {
	if s != Optimistic {
		return nil
	}
	switch v {
	case SyncWatermark:
		return fmt.Errorf("%s waits for sequences allocated before their commit (two-phase step 3), which strategy %s does not have (its allocation is the commit, so nothing commits below a sequence already readable): use strategy %s", v, s, TwoPhase)
	case RacyCounter:
		return fmt.Errorf("%s breaks two-phase allocation's atomic ADD (step 3), which strategy %s does not use (it allocates with a conditional write in the commit): the run would be a correct core; use strategy %s", v, s, TwoPhase)
	case AckBeforePersist:
		return fmt.Errorf("%s answers between two-phase allocation and the persist commit, a step strategy %s does not have (its allocation is the commit): the run would be a correct core; use strategy %s", v, s, TwoPhase)
	}
	return nil
}
