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
//     lines, and whether a message a sync returned exists with the id it
//     returned (the final messages table decides that; without it, a
//     later ack). That is: if it fails offline on the operations alone
//     too (OpsOnly: the history's persist and sync lines, each sync's
//     answer naming the ids acked at its sequences, judged under the
//     run's contract), the online check must have flagged it; for
//     identical_order, push_authorization and delivery_state_consistency,
//     if it fails on the receivers' lines alone (PushesOnly: pushes
//     compared with each other and acks with the pushes before them, the
//     final delivery_state table being the check after the run's).
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
		pushes := checker.Check(PushesOnly(h), checker.Options{Contract: &contract})
		for _, name := range missed {
			ref := ops
			if name == checker.NameIdenticalOrder || name == checker.NamePushAuthorization || name == checker.NameDeliveryStateConsistency {
				ref = pushes
			}
			if r, ok := ref.Result(name); ok && r.Status == checker.Fail {
				problems = append(problems, fmt.Sprintf("%s fails offline on the operations (or pushes) alone (%s), the online check did not flag it", name, r.Detail))
			}
		}
	}
	return strings.Join(problems, "; ")
}

// OpsOnly is h with only its persist and sync lines, what the online check
// reads, and each sync's answer naming, at each sequence acked anywhere in
// the history, the id first acked there: whether the message a sync
// returned is the one there is the final state's to say, not the
// operations'.
func OpsOnly(h *history.History) *history.History {
	ops := &history.History{File: h.File, Header: h.Header, End: h.End}
	ops.Events = slices.DeleteFunc(slices.Clone(h.Events), func(e history.Event) bool {
		switch e.Kind {
		case history.KindInvoke, history.KindOK, history.KindFail, history.KindInfo:
			return e.F != history.FPersist && e.F != history.FSync
		}
		return true
	})
	type at struct {
		chat string
		seq  uint64
	}
	acked := map[at]string{}
	invokes := map[int]*history.Event{} // by process: its open invoke
	for i := range ops.Events {
		e := &ops.Events[i]
		if e.Kind == history.KindInvoke {
			invokes[e.Process] = e
			continue
		}
		inv := invokes[e.Process]
		delete(invokes, e.Process)
		if inv != nil && e.Kind == history.KindOK && inv.F == history.FPersist {
			if _, ok := acked[at{inv.Chat, e.Seq}]; !ok {
				acked[at{inv.Chat, e.Seq}] = e.MessageID
			}
		}
	}
	for i := range ops.Events {
		e := &ops.Events[i]
		if e.Kind == history.KindInvoke {
			invokes[e.Process] = e
			continue
		}
		inv := invokes[e.Process]
		delete(invokes, e.Process)
		if inv == nil || e.Kind != history.KindOK || inv.F != history.FSync || e.Sync == nil || len(e.Sync.MessageIDs) != len(e.Sync.Seqs) {
			continue
		}
		r := &history.SyncResult{Seqs: e.Sync.Seqs, MessageIDs: slices.Clone(e.Sync.MessageIDs)}
		for j, s := range r.Seqs {
			if id, ok := acked[at{inv.Chat, s}]; ok {
				r.MessageIDs[j] = id
			}
		}
		e.Sync = r
	}
	return ops
}

// PushesOnly is h with only its receivers' lines (no operation, no final
// line): pushes judged against each other alone.
func PushesOnly(h *history.History) *history.History {
	p := &history.History{File: h.File, Header: h.Header, End: h.End}
	p.Receivers = slices.DeleteFunc(slices.Clone(h.Receivers), func(r history.Receiver) bool { return r.Kind == history.KindFinal })
	return p
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
