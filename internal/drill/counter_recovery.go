package drill

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/store"
)

// CounterRecovery rehearses ADR-004's counter recovery on a live load (see
// the package comment) and judges it. It passes when sends failed with a
// definite counter_missing while the counter was gone and allocated
// nothing, the in-flight write was waited for, the counter came back at the
// highest persisted sequence, the next message got max+1, nothing was
// acknowledged twice, and every invariant holds over the whole history —
// with one documented exception, see judgeInvariants.
//
// The error is for a drill that could not run (store, history file); a
// drill that ran and failed returns a Result with Passed false.
func CounterRecovery(ctx context.Context, st store.Store, cfg Config) (*Result, error) {
	step := cfg.Recover
	if step == nil {
		step = Runbook
	}
	res, err := execute(ctx, st, cfg, procedure{name: "counter-recovery", quiesce: true, recover: step})
	if err != nil {
		return nil, err
	}
	res.judgeRecovery()
	return res, nil
}

func (r *Result) judgeRecovery() {
	tl, f := r.Timeline, r.facts
	r.judgeCompleted()

	// While the counter is gone every send must fail definitely with
	// counter_missing (a replay of a key already persisted may still
	// answer; it allocates nothing).
	missing, wrong := 0, []string{}
	for i := range f.ops {
		o := &f.ops[i]
		switch {
		case o.f != history.FPersist:
		case o.kind == history.KindFail && o.code == sequencer.CodeCounterMissing:
			missing++
		case o.invoke > tl.CounterDeleted && o.done >= 0 && o.done < tl.RecoveryStarted && !(o.kind == history.KindOK && o.dedup):
			wrong = append(wrong, fmt.Sprintf("line %d: %s %s%s", o.doneLine, o.kind, o.code, seqText(o.seq)))
		}
	}
	r.expect("sends fail with counter_missing", missing > 0 && len(wrong) == 0,
		fmt.Sprintf("%s failed definitely with counter_missing while the counter was gone%s", plural(missing, "send"), listText("; other outcomes", wrong)))

	var allocated []string
	for _, a := range f.allocs {
		if a.start > tl.CounterDeleted && a.time < tl.RecoveryStarted {
			allocated = append(allocated, fmt.Sprintf("seq %d (line %d)", a.seq, a.line))
		}
	}
	r.expect("nothing allocated while the counter is gone", len(allocated) == 0,
		"no allocation began after the deletion and ended before the recovery"+listText("; but", allocated))

	r.judgeStraggler()

	ok := r.RecoveryError == "" && r.CounterAfterRecovery == r.MaxPersisted
	detail := fmt.Sprintf("counter recreated at %d; highest persisted sequence after quiescing %d", r.CounterAfterRecovery, r.MaxPersisted)
	if r.RecoveryError != "" {
		detail += "; recovery error: " + r.RecoveryError
	}
	r.expect("counter restored to the highest persisted sequence", ok, detail)

	want := r.MaxPersisted + 1
	r.expect("first new sequence is max+1", r.VerifySeq == want && r.FirstNewSeq == want,
		fmt.Sprintf("post-recovery test message got seq %d, lowest sequence allocated after recovery %d, want %d", r.VerifySeq, r.FirstNewSeq, want))

	r.expect("no sequence acknowledged twice", len(r.DuplicateSeqs) == 0 && len(r.ReusedPersisted) == 0,
		"every acknowledged sequence names one message"+listText("; acknowledged for two messages", uintTexts(r.DuplicateSeqs))+
			listText("; persisted sequences allocated again", uintTexts(r.ReusedPersisted)))

	ok, detail = r.judgeInvariants()
	r.expect("every invariant holds", ok, detail)
	r.passedAll()
}

func (r *Result) judgeCompleted() {
	detail := "warm-up, deletion, detection, recovery and resumed load all completed"
	if r.Aborted != "" {
		detail = "aborted: " + r.Aborted
	}
	r.expect("drill completed", r.Aborted == "", detail)
}

// judgeStraggler: the persist in flight across the deletion either landed
// before the recovery read the max (two-phase: it had its sequence) or
// failed with counter_missing (occ: its commit was conditional on the
// counter that vanished).
func (r *Result) judgeStraggler() {
	for i := range r.facts.ops {
		o := &r.facts.ops[i]
		if o.key != stragglerKey || o.f != history.FPersist {
			continue
		}
		switch {
		case o.kind == history.KindOK && o.seq <= r.MaxPersisted && o.done < r.Timeline.RecoveryStarted:
			r.expect("in-flight write waited for", true, fmt.Sprintf("the straggler landed at seq %d before the recovery read the max", o.seq))
		case o.kind == history.KindFail && o.code == sequencer.CodeCounterMissing:
			r.expect("in-flight write waited for", true, "the straggler's conditional commit failed with counter_missing once the counter was gone")
		default:
			r.expect("in-flight write waited for", false, fmt.Sprintf("the straggler ended %s %s%s at line %d, after the recovery read max %d",
				o.kind, o.code, seqText(o.seq), o.doneLine, r.MaxPersisted))
		}
		return
	}
	r.expect("in-flight write waited for", false, "the straggler persist is not in the history")
}

// judgeInvariants requires every invariant to pass, with one exception the
// runbook itself causes: it restores the highest *persisted* sequence, so
// sequences allocated before the deletion and never persisted (orphans) are
// allocated again. allocation_monotonicity, as ADR-004 states it, rightly
// fails on them. That failure is accepted only when its counterexample is
// made of re-issued sequences; every other invariant, including every
// uniqueness and persistence one, must pass.
func (r *Result) judgeInvariants() (bool, string) {
	allowed := r.facts.linesOfSeqs(r.Reissued)
	var failed, unknown, deviation []string
	passed := 0
	for _, inv := range r.Report.Invariants {
		switch inv.Status {
		case checker.Pass:
			passed++
		case checker.Unknown:
			unknown = append(unknown, inv.Name+" ("+inv.Detail+")")
		case checker.Fail:
			if inv.Name == checker.NameAllocationMonotonicity && len(r.Reissued) > 0 && len(r.ReusedPersisted) == 0 && allLinesIn(inv.Lines, allowed) {
				deviation = append(deviation, inv.Name)
				continue
			}
			failed = append(failed, inv.Name+": "+inv.Detail)
		}
	}
	ok := len(failed) == 0 && len(unknown) == 0 && passed > 0
	detail := fmt.Sprintf("%d invariants pass", passed)
	if len(deviation) > 0 {
		detail += fmt.Sprintf("; %s fails only on the %d re-issued sequences %v (expected: the runbook restores the highest persisted sequence, not the highest allocated)",
			strings.Join(deviation, ", "), len(r.Reissued), r.Reissued)
	}
	detail += listText("; failing", failed) + listText("; undecided", unknown)
	return ok, detail
}

func allLinesIn(lines []int, allowed map[int]bool) bool {
	return len(lines) > 0 && !slices.ContainsFunc(lines, func(l int) bool { return !allowed[l] })
}

func seqText(seq uint64) string {
	if seq == 0 {
		return ""
	}
	return fmt.Sprintf(" seq %d", seq)
}

func listText(label string, items []string) string {
	if len(items) == 0 {
		return ""
	}
	const show = 5
	more := ""
	if len(items) > show {
		more = fmt.Sprintf(" and %d more", len(items)-show)
		items = items[:show]
	}
	return label + ": " + strings.Join(items, ", ") + more
}

func uintTexts(xs []uint64) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = fmt.Sprint(x)
	}
	return out
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
