package scenarios

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/storeopen"
	"github.com/chatseq/chatseq/targets"
	"github.com/chatseq/chatseq/targets/ledger"
	"github.com/chatseq/chatseq/targets/postgres"
)

// onlineDisagreement says how a run's online verdict contradicts its
// offline one, "" when they agree. The rule:
//   - every invariant the online check flagged fails offline;
//   - an invariant of checker.OnlineInvariants that fails offline was
//     flagged online, unless only what the online check cannot see
//     proves it: the final state's rows, the topic's events, the
//     receivers' lines. That is: it fails offline on the operations alone
//     too (the history's persist and sync lines, judged under the run's
//     contract), then the online check must have flagged it.
func onlineDisagreement(o *Outcome) string {
	offline := map[string]checker.Status{}
	for _, r := range o.Check.Invariants {
		offline[r.Name] = r.Status
	}
	flagged := map[string]bool{}
	var problems []string
	for _, v := range o.Online {
		flagged[v.Invariant] = true
		if offline[v.Invariant] != checker.Fail {
			problems = append(problems, fmt.Sprintf("online found %s violated (%s), offline says %q", v.Invariant, v.Detail, offline[v.Invariant]))
		}
	}
	var missed []string
	for _, name := range checker.OnlineInvariants {
		if offline[name] == checker.Fail && !flagged[name] {
			missed = append(missed, name)
		}
	}
	if len(missed) > 0 {
		h, err := history.ReadFile(o.History)
		if err != nil {
			return err.Error()
		}
		ops := opsOnly(h)
		contract := o.Check.Contract
		rep := checker.Check(ops, checker.Options{Contract: &contract})
		for _, name := range missed {
			if r, ok := rep.Result(name); ok && r.Status == checker.Fail {
				problems = append(problems, fmt.Sprintf("%s fails offline on the operations alone (%s), the online check did not flag it", name, r.Detail))
			}
		}
	}
	return strings.Join(problems, "; ")
}

// opsOnly is h with only its persist and sync lines: what the online
// check reads.
func opsOnly(h *history.History) *history.History {
	ops := &history.History{File: h.File, Header: h.Header, End: h.End}
	for _, e := range h.Events {
		switch e.Kind {
		case history.KindInvoke, history.KindOK, history.KindFail, history.KindInfo:
			if e.F == history.FPersist || e.F == history.FSync {
				ops.Events = append(ops.Events, e)
			}
		}
	}
	return ops
}

// The online and the offline verdict agree (onlineDisagreement's rule)
// on every registered variant of every target that runs in this process,
// the design as written included, at small defaults. The shipped
// scenarios are held to the same rule by TestShippedScenarios.
func TestOnlineAgreesWithOfflineOnEveryVariant(t *testing.T) {
	cache := NewTargetCache()
	defer cache.Close()
	opts := Options{OutDir: t.TempDir(), Targets: cache}
	flaggedAny := map[string]bool{}
	for _, target := range []string{storeopen.Memory, ledger.Name, postgres.Name} {
		runs := []string{""}
		for _, v := range targets.Variants(target) {
			runs = append(runs, v.Name)
		}
		for _, v := range runs {
			// Duplicates, raced and after an answer, give the
			// idempotency bugs their chance.
			yaml := fmt.Sprintf("name: agree-%s-%s\ntarget: %s\nops: 400\nwriters: 4\nchats: 3\nconcurrent_duplicate: 0.3\nduplicate_after_ok: 0.2\nexpect: pass\n", target, v, target)
			if target == storeopen.Memory {
				yaml += "faults:\n  stale_read: 0.3\n" // the look-up misses, as DynamoDB may
			}
			if v != "" {
				field := "broken"
				if slices.ContainsFunc(targets.Variants(target), func(x targets.Variant) bool { return x.Name == v && x.Design() }) {
					field = "variant"
				}
				yaml += field + ": " + v + "\n"
			}
			sc, err := Decode([]byte(yaml), "agree.yaml")
			if err != nil {
				t.Fatalf("%s %s: %v", target, v, err)
			}
			o := Run(context.Background(), sc, opts)
			if o.Verdict == RunError {
				t.Fatalf("%s %q: %v", target, v, o.Err)
			}
			if d := onlineDisagreement(o); d != "" {
				t.Errorf("%s %q: %s\n  the scenario:\n%s", target, v, d, yaml)
			}
			var names []string
			for _, vi := range o.Online {
				flaggedAny[vi.Invariant] = true
				names = append(names, vi.Invariant)
			}
			t.Logf("%s %q: %d lines, offline failing %v, online %v", target, v, o.Lines, failing(o.Check), names)
		}
	}
	// Each bug whose catching invariant the online check judges was
	// flagged online (at least by one target): the rule above was put to
	// work, not only met by silence.
	for _, target := range []string{storeopen.Memory, ledger.Name, postgres.Name} {
		for _, v := range targets.Variants(target) {
			if slices.Contains(checker.OnlineInvariants, v.CaughtBy) && !flaggedAny[v.CaughtBy] {
				t.Errorf("%s %s: the online check flagged no violation of %s", target, v.Name, v.CaughtBy)
			}
		}
	}
	t.Logf("flagged online: %v", flaggedAny)
}

func failing(rep checker.Report) []string {
	var names []string
	for _, r := range rep.Invariants {
		if r.Status == checker.Fail {
			names = append(names, r.Name)
		}
	}
	return names
}
