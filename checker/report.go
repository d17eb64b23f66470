// Package checker judges a recorded chatseq history (HISTORY.md, version 1)
// against the invariants of ADR-001 and ADR-004, under the names HISTORY.md
// fixes. Order properties are decided by exact near-linear sweeps; the whole
// per-chat history is also checked against a sequential model with
// porcupine, within a time and memory budget. INVARIANTS.md states each
// invariant's exact meaning and where it departs from the design documents.
package checker

import (
	"time"

	"github.com/chatseq/chatseq/history"
)

// Status is one invariant's verdict.
type Status string

const (
	Pass Status = "pass"
	Fail Status = "fail"
	// Unknown: the history holds the evidence but it was not decided (a
	// budget ran out, a contract value HISTORY.md does not define, a
	// file cut short), or an invariant required by Options.Require has
	// none.
	Unknown Status = "unknown"
	// statusNA marks a result that goes to Report.NotApplicable; no
	// Result in Report.Invariants has it.
	statusNA Status = "n/a"
)

// Invariant names, exactly as HISTORY.md spells them.
const (
	NameSequenceUniqueness      = "sequence_uniqueness"
	NameNoZeroSequence          = "no_zero_sequence"
	NameAllocationMonotonicity  = "allocation_monotonicity"
	NameSequenceMonotonic       = "sequence_monotonic"
	NameCounterIsLastAllocated  = "counter_is_last_allocated"
	NameSequenceMonotonicity    = "sequence_monotonicity"
	NameCounterLowerBound       = "counter_lower_bound"
	NameIdempotencyGuarantee    = "idempotency_guarantee"
	NameIdempotencySeqConsist   = "idempotency_sequence_consistency"
	NameAckImpliesPersistence   = "ack_implies_persistence"
	NameFailHasNoEffect         = "fail_has_no_effect"
	NameNoPhantomMessages       = "no_phantom_messages"
	NameGapIsAllocation         = "gap_is_allocation_without_persistence"
	NameGapless                 = "gapless"
	NameKeyReuse                = "key_reuse"
	NameSyncCompleteness        = "sync_completeness"
	NameEventCompleteness       = "event_completeness"
	NameCatchUpCompleteness     = "catch_up_completeness"
	NameEventOrder              = "event_order"
	NameLinearizability         = "linearizability"
	NameAPIConformance          = "api_conformance"
	defaultLinearizabilityLimit = 10 * time.Second
)

// InvariantNames lists every invariant in report order.
var InvariantNames = []string{
	NameSequenceUniqueness, NameNoZeroSequence, NameAllocationMonotonicity,
	NameSequenceMonotonic, NameCounterIsLastAllocated, NameSequenceMonotonicity,
	NameCounterLowerBound, NameIdempotencyGuarantee, NameIdempotencySeqConsist,
	NameAckImpliesPersistence, NameFailHasNoEffect, NameNoPhantomMessages,
	NameGapIsAllocation, NameGapless, NameKeyReuse,
	NameSyncCompleteness, NameEventCompleteness, NameCatchUpCompleteness,
	NameEventOrder, NameAPIConformance, NameLinearizability,
}

// Result is one judged invariant.
type Result struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	Detail string `json:"detail"`
	// Lines is the smallest counterexample found, as file line numbers
	// (ascending). Empty unless Status is fail.
	Lines []int `json:"lines"`
}

// NotApplicable is an invariant that was not judged and does not count
// against the verdict: the contract does not require it, or the history,
// complete, holds none of the evidence it reads (no sync at all, no
// allocate trace, no final lines of the tables it needs). Reason says which.
type NotApplicable struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// Options tune a check.
type Options struct {
	// Contract, when non-nil, overrides the header's contract field by field
	// (empty fields keep the header's value), as chatseq check flags do.
	Contract *history.Contract
	// LinearizabilityTimeout is the total porcupine budget over all chats;
	// 0 means 10s.
	LinearizabilityTimeout time.Duration
	// VisualizeDir, if set, receives a porcupine visualization (HTML) for
	// each chat that is not linearizable, size-capped.
	VisualizeDir string
	// PorcupineMemory bounds porcupine's caches over all its workers, in
	// bytes; 0 means DefaultPorcupineMemory. It decides how large a chat
	// porcupine tries: about sqrt(8·PorcupineMemory/workers) operations.
	PorcupineMemory int64
	// Interval, when positive, has Stats count allocations and gaps per
	// interval of that length on the history's clock (bench's seconds).
	Interval time.Duration
	// Porcupine decides every chat with porcupine instead of the exact
	// checker (which hands porcupine only the chats outside its reach).
	Porcupine bool
	// Require names invariants that must be judged: one that would be
	// not applicable is unknown instead ("required, but ..."), so that
	// a CI job can insist on, say, sync_completeness. Names must be in
	// InvariantNames (see CheckRequire); others are ignored with a
	// warning.
	Require []string
	// SoleWriter, when non-nil, overrides the header's sole_writer: true
	// says the history's clients are its chats' only writers, so that a
	// final message none of them sent fails no_phantom_messages; false
	// takes a header's claim back (chatseq check --sole-writer).
	SoleWriter *bool
}

// Report is the outcome of Check.
type Report struct {
	// Valid is false if any invariant failed, null if none failed but some
	// are unknown, true otherwise.
	Valid         *bool           `json:"valid"`
	Invariants    []Result        `json:"invariants"`
	NotApplicable []NotApplicable `json:"not_applicable"`
	Warnings      []string        `json:"warnings"`
	Stats         Stats           `json:"stats"`
	// Contract is the contract the history was judged against, defaults
	// filled in.
	Contract history.Contract `json:"contract"`
}

// Stats summarise the history. Operation counts cover persists and syncs.
type Stats struct {
	Chats       int `json:"chats"`
	Operations  int `json:"operations"`
	Persists    int `json:"persists"`
	Syncs       int `json:"syncs"`
	OK          int `json:"ok"`
	Dedup       int `json:"dedup"` // persist ok answered as a replay
	Fail        int `json:"fail"`
	Info        int `json:"info"`       // includes Unfinished
	Unfinished  int `json:"unfinished"` // invoked, never completed
	Allocations int `json:"allocations"`
	Messages    int `json:"messages"` // final messages lines
	// Gaps counts sequences 1..counter with no final message, over chats
	// with a final counter; GapRate is Gaps over the sum of those counters
	// (ADR-004's calculate_gap_rate).
	Gaps    int     `json:"gaps"`
	GapRate float64 `json:"gap_rate"`
	// GapCauses classifies traced gaps by how the allocating operation
	// ended: its error code, "raced" (answered as a replay), "unfinished",
	// "untraced" (no allocation explains it) and so on.
	GapCauses map[string]int `json:"gap_causes"`
	// ErrorCodes counts fail and info completions by error code.
	ErrorCodes map[string]int `json:"error_codes"`
	// LateCommits counts messages below a sequence some sync had already
	// returned without them (see sync_completeness).
	LateCommits     int `json:"late_commits"`
	DuplicateEvents int `json:"duplicate_events"`
	// CatchUpMissed counts (reader, message) pairs of
	// catch_up_completeness: a message a reader's cursor passed and that
	// reader never received. EventsOutOfOrder counts events of event_order:
	// a message's first event that comes after a higher sequence of its
	// chat in its partition. Both are counted whenever the history holds
	// the evidence (readers, events lines), whatever the contract.
	CatchUpMissed    int `json:"catch_up_missed"`
	EventsOutOfOrder int `json:"events_out_of_order"`
	// MaxAckedSeq is the highest sequence a persist was acknowledged with.
	MaxAckedSeq uint64 `json:"max_acked_seq"`
	// IntervalAllocations and IntervalGaps count, per Options.Interval of
	// the history's clock (when set), the traced allocations and those
	// whose sequence no final message holds on a chat whose counter
	// survived (the gap definition above).
	IntervalAllocations []int64 `json:"interval_allocations,omitempty"`
	IntervalGaps        []int64 `json:"interval_gaps,omitempty"`
	// LinearizabilityChats counts chats decided; ...Undecided those that
	// were not (only a chat handed to porcupine can be: its limits).
	LinearizabilityChats     int `json:"linearizability_chats"`
	LinearizabilityUndecided int `json:"linearizability_undecided"`
	// CheckMillis is how long Check took.
	CheckMillis int64 `json:"check_ms"`
}

// ExitCode is chatseq check's exit status for r: 0 valid, 1 any invariant
// failed, 3 some unknown and none failed.
func (r Report) ExitCode() int {
	switch {
	case r.Valid == nil:
		return 3
	case *r.Valid:
		return 0
	default:
		return 1
	}
}

// Result returns the named invariant's result and whether it was judged.
func (r Report) Result(name string) (Result, bool) {
	for _, res := range r.Invariants {
		if res.Name == name {
			return res, true
		}
	}
	return Result{}, false
}

func (r *Report) setValid() {
	anyUnknown := false
	for _, res := range r.Invariants {
		switch res.Status {
		case Fail:
			v := false
			r.Valid = &v
			return
		case Unknown:
			anyUnknown = true
		}
	}
	if anyUnknown {
		r.Valid = nil
		return
	}
	v := true
	r.Valid = &v
}
