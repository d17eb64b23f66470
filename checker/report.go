// Package checker judges a recorded chatseq history (HISTORY.md, version 1)
// against the invariants of ADR-001 and ADR-004, under the names HISTORY.md
// fixes. Order properties are decided by exact near-linear sweeps; the whole
// per-chat history is also checked against a sequential model with
// porcupine, within a time and memory budget. INVARIANTS.md states each
// invariant's exact meaning and where it departs from the design documents.
package checker

import (
	"io"
	"time"

	"github.com/chatseq/chatseq/checker/internal/render"
	"github.com/chatseq/chatseq/history"
)

// A check's outcome lives in checker/internal/render (its Report,
// Results, the Verdict an invariant fills and the text table); these are
// its public names.
type (
	// Status is one invariant's verdict.
	Status = render.Status
	// Result is one judged invariant.
	Result = render.Result
	// NotApplicable is an invariant that was not judged and does not
	// count against the verdict.
	NotApplicable = render.NotApplicable
	// Report is the outcome of Check.
	Report = render.Report
	// Stats summarise the history.
	Stats = render.Stats
	// DeliveryStats counts what a history's receiver lines hold.
	DeliveryStats = render.DeliveryStats
)

const (
	Pass = render.Pass
	Fail = render.Fail
	// Unknown: the history holds the evidence but it was not decided, or
	// an invariant required by Options.Require has none.
	Unknown = render.Unknown
	// statusNA marks a result that goes to Report.NotApplicable.
	statusNA = render.StatusNA
)

// WriteText renders r as a human table: one row per invariant with its
// status and detail, the counterexample lines under a failure, then the
// invariants that do not apply, warnings and statistics.
func WriteText(w io.Writer, r Report) error { return render.WriteText(w, r) }

// Each invariant's name (NameX), as HISTORY.md spells it, is in the
// invariant's file, NAME.go; the registry (registry.go) lists them.

// defaultLinearizabilityLimit is porcupine's budget when
// Options.LinearizabilityTimeout is 0.
const defaultLinearizabilityLimit = 10 * time.Second

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
