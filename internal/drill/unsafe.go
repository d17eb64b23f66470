package drill

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/store"
)

// Case is a recovery that ignores one of the runbook's safeguards.
type Case string

const (
	// CaseBelowMax restores the counter one below the highest persisted
	// sequence (a stale value: a backup, PITR, a miscount).
	CaseBelowMax Case = "below-max"
	// CaseRacingWriter runs the runbook without quiescing: the straggler,
	// which allocated before the deletion, commits after the recovery has
	// recreated the counter below it.
	CaseRacingWriter Case = "racing-writer"
)

// Cases lists every unsafe case.
var Cases = []Case{CaseBelowMax, CaseRacingWriter}

// ParseCase accepts a case name.
func ParseCase(s string) (Case, bool) {
	for _, c := range Cases {
		if string(c) == s {
			return c, true
		}
	}
	return "", false
}

// CaughtBy are the invariants that must report the damage: two messages
// acknowledged at one sequence (sequence_uniqueness, judged on acks because
// the messages table's (chat_id, sequence) key lets the second put overwrite
// the first) and an acknowledged message no longer in the table
// (ack_implies_persistence).
var CaughtBy = []string{checker.NameSequenceUniqueness, checker.NameAckImpliesPersistence}

// UnsafeRecovery runs the drill with a recovery that skips a safeguard and
// passes when the damage it does — a sequence acknowledged for two messages
// — happened and the checker caught it under CaughtBy. Damage that goes
// unnoticed, or no damage at all, fails it.
func UnsafeRecovery(ctx context.Context, st store.Store, cfg Config, c Case) (*Result, error) {
	var proc procedure
	switch c {
	case CaseBelowMax:
		proc = procedure{name: "unsafe-recovery/" + string(c), quiesce: true, recover: BelowMax(1)}
	case CaseRacingWriter:
		if s, _ := sequencer.ParseStrategy(string(cfg.Strategy)); s == sequencer.Optimistic {
			return nil, errors.New("the racing-writer case needs --strategy two-phase: under occ the straggler's commit is conditional on the counter still holding the value it read, so a racing recovery cannot make it duplicate")
		}
		proc = procedure{name: "unsafe-recovery/" + string(c), releaseAfterRecovery: true, recover: Runbook}
	default:
		return nil, fmt.Errorf("unknown unsafe-recovery case %q (known: %s, %s)", c, CaseBelowMax, CaseRacingWriter)
	}
	res, err := execute(ctx, st, cfg, proc)
	if err != nil {
		return nil, err
	}
	res.judgeDamage()
	return res, nil
}

func (r *Result) judgeDamage() {
	r.judgeCompleted()
	r.expect("damage done", len(r.DuplicateSeqs) > 0,
		fmt.Sprintf("sequences acknowledged for two different messages: %v (counter recreated at %d, highest persisted %d at recovery)",
			r.DuplicateSeqs, r.CounterAfterRecovery, r.MaxPersisted))
	damage := r.facts.linesOfSeqs(r.DuplicateSeqs)
	for _, name := range CaughtBy {
		res, ok := r.Report.Result(name)
		switch {
		case !ok:
			r.expect(name+" catches it", false, "not judged by the checker")
		case res.Status != checker.Fail:
			r.expect(name+" catches it", false, fmt.Sprintf("%s: %s — the damage went unnoticed", res.Status, res.Detail))
		case !anyLineIn(res.Lines, damage):
			r.expect(name+" catches it", false, fmt.Sprintf("fails, but its counterexample (lines %v) is not the duplicated sequences: %s", res.Lines, res.Detail))
		default:
			r.expect(name+" catches it", true, res.Detail)
		}
	}
	var also []string
	for _, inv := range r.Report.Invariants {
		if inv.Status == checker.Fail && !isCaughtBy(inv.Name) {
			also = append(also, inv.Name)
		}
	}
	if len(also) > 0 {
		r.expect("also reported", true, strings.Join(also, ", "))
	}
	r.passedAll()
}

func anyLineIn(lines []int, set map[int]bool) bool {
	for _, l := range lines {
		if set[l] {
			return true
		}
	}
	return false
}

func isCaughtBy(name string) bool {
	for _, n := range CaughtBy {
		if n == name {
			return true
		}
	}
	return false
}
