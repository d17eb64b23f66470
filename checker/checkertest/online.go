package checkertest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/history"
)

// OnlineDisagreement says how a run's online verdict (online: what the
// online check found while the writers ran) contradicts its offline one
// (rep, the check of the history file at historyPath), "" when they
// agree. The rule:
//   - every invariant the online check flagged fails offline;
//   - an invariant of checker.OnlineInvariants that fails offline was
//     flagged online, unless only what the online check cannot see proves
//     it: the final state's rows, the topic's events, the receivers'
//     lines. That is: if it fails offline on the operations alone too
//     (the history's persist and sync lines, judged under the run's
//     contract), the online check must have flagged it.
func OnlineDisagreement(rep checker.Report, online []checker.Violation, historyPath string) string {
	offline := map[string]checker.Status{}
	for _, r := range rep.Invariants {
		offline[r.Name] = r.Status
	}
	flagged := map[string]bool{}
	var problems []string
	for _, v := range online {
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
		h, err := history.ReadFile(historyPath)
		if err != nil {
			return err.Error()
		}
		contract := rep.Contract
		ops := checker.Check(OpsOnly(h), checker.Options{Contract: &contract})
		for _, name := range missed {
			if r, ok := ops.Result(name); ok && r.Status == checker.Fail {
				problems = append(problems, fmt.Sprintf("%s fails offline on the operations alone (%s), the online check did not flag it", name, r.Detail))
			}
		}
	}
	return strings.Join(problems, "; ")
}

// OpsOnly is h with only its persist and sync lines: what the online
// check reads.
func OpsOnly(h *history.History) *history.History {
	ops := &history.History{File: h.File, Header: h.Header, End: h.End}
	ops.Events = slices.DeleteFunc(slices.Clone(h.Events), func(e history.Event) bool {
		switch e.Kind {
		case history.KindInvoke, history.KindOK, history.KindFail, history.KindInfo:
			return e.F != history.FPersist && e.F != history.FSync
		}
		return true
	})
	return ops
}

// Failing names the invariants rep fails.
func Failing(rep checker.Report) []string {
	var names []string
	for _, r := range rep.Invariants {
		if r.Status == checker.Fail {
			names = append(names, r.Name)
		}
	}
	return names
}
