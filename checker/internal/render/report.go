// Package render holds a check's outcome as checker reports it: the
// Report and its Results, the Verdict an invariant accumulates its
// findings in, and the text table chatseq check prints. Package checker
// re-exports the public names; nothing here reads a history.
package render

import (
	"github.com/chatseq/chatseq/history"
)

// Status is one invariant's verdict.
type Status string

const (
	Pass Status = "pass"
	Fail Status = "fail"
	// Unknown: the history holds the evidence but it was not decided (a
	// budget ran out, a contract value HISTORY.md does not define, a
	// file cut short), or an invariant required by checker.Options.Require has
	// none.
	Unknown Status = "unknown"
	// StatusNA marks a result that goes to Report.NotApplicable; no
	// Result in Report.Invariants has it.
	StatusNA Status = "n/a"
)

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

// Report is the outcome of a check (checker.Check).
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
	// Delivery counts what the receivers' lines hold (nil: none).
	Delivery *DeliveryStats `json:"delivery,omitempty"`
	// MaxAckedSeq is the highest sequence a persist was acknowledged with.
	MaxAckedSeq uint64 `json:"max_acked_seq"`
	// IntervalAllocations and IntervalGaps count, per checker.Options.Interval of
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

// SetValid sets r.Valid from its invariants' statuses.
func (r *Report) SetValid() {
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

// DeliveryStats counts what a history's receiver lines hold. Duplicates
// (a device pushed a sequence of a chat it already had) and OutOfOrder (a
// first arrival below a sequence the device already had) are the
// at-least-once transport's and the client's reorder's (ADR-001 §6):
// counted here, never failed.
type DeliveryStats struct {
	Devices    int `json:"devices"`
	Settled    int `json:"settled"`
	PushLines  int `json:"push_lines"`
	Pushed     int `json:"pushed"` // (seq, message_id) pairs pushed
	Duplicates int `json:"duplicates"`
	OutOfOrder int `json:"out_of_order"`
	Acks       int `json:"delivery_acks"`
	AfterLeave int `json:"pushed_after_leave"`
}
