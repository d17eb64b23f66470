package drill

import (
	"github.com/chatseq/chatseq/checker"
)

// Timeline holds the drill's moments as nanoseconds on the history's clock
// (so they compare with the events' "time"); -1 means it did not happen.
type Timeline struct {
	LoadStart           int64 `json:"load_start_ns"`
	StragglerInFlight   int64 `json:"straggler_in_flight_ns"`
	CounterDeleted      int64 `json:"counter_deleted_ns"`
	FirstCounterMissing int64 `json:"first_counter_missing_ns"`
	Quiesced            int64 `json:"quiesced_ns"`
	RecoveryStarted     int64 `json:"recovery_started_ns"`
	RecoveryWritten     int64 `json:"recovery_written_ns"`
	FirstSuccess        int64 `json:"first_success_ns"` // first new message acknowledged after the recovery began
	LoadStopped         int64 `json:"load_stopped_ns"`
}

// TimeToDetect is from the deletion to the first counter_missing a client
// saw; -1 if either is missing.
func (t Timeline) TimeToDetect() int64 { return since(t.CounterDeleted, t.FirstCounterMissing) }

// TimeToRecover is the outage clients saw: from the deletion to the first
// new message acknowledged after the recovery; -1 if either is missing.
func (t Timeline) TimeToRecover() int64 { return since(t.CounterDeleted, t.FirstSuccess) }

func since(from, to int64) int64 {
	if from < 0 || to < 0 {
		return -1
	}
	return to - from
}

// Expectation is one thing the drill requires, judged after the run.
type Expectation struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

// Result is a finished drill.
type Result struct {
	Drill       string `json:"drill"`
	Chat        string `json:"chat"`
	Target      string `json:"target"`
	Strategy    string `json:"strategy"`
	Writers     int    `json:"writers"`
	Orphans     int    `json:"orphans"`
	HistoryPath string `json:"history"`

	Timeline Timeline `json:"timeline"`
	// MaxPersisted is the highest persisted sequence right before the
	// recovery (after quiescing, when the procedure quiesces).
	MaxPersisted uint64 `json:"max_persisted"`
	// Recovered is the value the recovery step wrote or found;
	// CounterAfterRecovery is what the counter read right after.
	Recovered            uint64 `json:"recovered"`
	CounterAfterRecovery uint64 `json:"counter_after_recovery"`
	RecoveryError        string `json:"recovery_error,omitempty"`
	// StragglerSeq is the sequence the straggler was acknowledged (0 if it
	// was not, e.g. under occ, where its conditional commit fails).
	StragglerSeq uint64 `json:"straggler_seq"`
	// VerifySeq is the post-recovery test message's sequence (0 if none).
	VerifySeq uint64 `json:"verify_seq"`
	// FirstNewSeq is the lowest sequence allocated after the recovery.
	FirstNewSeq uint64 `json:"first_new_seq"`
	// Reissued are sequences allocated before the deletion, never
	// persisted, and allocated again after the recovery: ADR-004's runbook
	// restores the highest persisted sequence, not the highest allocated.
	Reissued []uint64 `json:"reissued"`
	// ReusedPersisted are sequences acknowledged before the recovery and
	// allocated again after it: the damage a bad recovery does.
	ReusedPersisted []uint64 `json:"reused_persisted"`
	// DuplicateSeqs are sequences acknowledged for two different messages.
	DuplicateSeqs []uint64 `json:"duplicate_seqs"`
	// Aborted says why a phase did not complete ("" if all did).
	Aborted      string         `json:"aborted,omitempty"`
	Expectations []Expectation  `json:"expectations"`
	Report       checker.Report `json:"check"`
	Passed       bool           `json:"passed"`

	facts *facts // what the history showed, for the expectations
}

func newResult(name string, cfg Config) *Result {
	return &Result{
		Drill: name, Chat: cfg.Chat, Target: cfg.Target, Strategy: string(cfg.Strategy),
		Writers: cfg.Writers, Orphans: cfg.Orphans, HistoryPath: cfg.HistoryPath,
		Timeline: Timeline{
			LoadStart: -1, StragglerInFlight: -1, CounterDeleted: -1, FirstCounterMissing: -1,
			Quiesced: -1, RecoveryStarted: -1, RecoveryWritten: -1, FirstSuccess: -1, LoadStopped: -1,
		},
		Reissued: []uint64{}, ReusedPersisted: []uint64{}, DuplicateSeqs: []uint64{}, Expectations: []Expectation{},
	}
}

func (r *Result) expect(name string, ok bool, detail string) {
	r.Expectations = append(r.Expectations, Expectation{Name: name, OK: ok, Detail: detail})
}

// passedAll sets Passed from the expectations.
func (r *Result) passedAll() {
	r.Passed = len(r.Expectations) > 0
	for _, e := range r.Expectations {
		r.Passed = r.Passed && e.OK
	}
}
