package linearize

import (
	"fmt"
	"slices"
	"strings"
)

// Counterexamples of the exact checker: the operations of a cycle of
// precedences, of a chain of precedences too long for the time between its
// first operation's invoke and its last one's completion, or of sequences
// shown before enough operations of unknown outcome could have made them.

// pathOps maps a node path to the model operations on it, in order, once
// each.
func (e *exactChat) pathOps(nodes []int32) []int32 {
	var ops []int32
	for _, v := range nodes {
		if v >= e.g.real() {
			continue
		}
		if op := e.g.opOf(v); op >= 0 && (len(ops) == 0 || ops[len(ops)-1] != op) {
			ops = append(ops, op)
		}
	}
	return ops
}

// why says why a must take effect before b, when the pair shows it.
func (e *exactChat) why(a, b int32) string {
	oa, ob := &e.m.Ops[a], &e.m.Ops[b]
	commits := func(o *Op) bool { return o.Kind == KindNew || o.Kind == KindInfo && o.Seq != 0 }
	shows := func(o *Op, s uint64) bool {
		for _, q := range e.m.SyncOf(o).Seqs {
			if q == s {
				return true
			}
		}
		return false
	}
	switch {
	case commits(oa) && ob.Kind == KindSync && shows(ob, oa.Seq):
		return fmt.Sprintf("it returned sequence %d", oa.Seq)
	case oa.Kind == KindSync && commits(ob) && !shows(oa, ob.Seq):
		return fmt.Sprintf("the sync did not return sequence %d", ob.Seq)
	case commits(oa) && (ob.Kind == KindDedup || ob.Kind == KindRejected) && oa.Key == ob.Key:
		return "it answers that key"
	case commits(oa) && commits(ob) && e.forbidden:
		return "gaps: forbidden commits in sequence order"
	}
	return ""
}

func (e *exactChat) chain(ops []int32) string {
	var b strings.Builder
	for i, op := range ops {
		if i > 0 {
			b.WriteString(", then ")
		}
		b.WriteString(e.desc(op))
		if i > 0 {
			if w := e.why(ops[i-1], op); w != "" {
				fmt.Fprintf(&b, " (%s)", w)
			}
		}
	}
	return b.String()
}

func (e *exactChat) explainCycle(cycle []int32) (string, []int) {
	ops := e.pathOps(cycle)
	if len(ops) > 1 && ops[0] == ops[len(ops)-1] {
		ops = ops[:len(ops)-1]
	}
	capped := ops[:min(len(ops), hintMaxLines/2)]
	return fmt.Sprintf("these operations must each take effect before the next, and the last before the first: %s", e.chain(capped)), e.lines(capped...)
}

// explainLate names the shortest chain from the node whose own earliest
// time forced v's to v, which must complete before that.
func (e *exactChat) explainLate(v int32) (string, []int) {
	path := e.g.criticalPath(v)
	if p := e.g.shortestPath(path[0], v); p != nil {
		path = p
	}
	ops := e.pathOps(path)
	if len(ops) == 0 {
		return "no order fits the operations' intervals", nil
	}
	capped := ops
	if len(ops) > hintMaxLines/2 {
		capped = append(append([]int32{}, ops[:hintMaxLines/4]...), ops[len(ops)-hintMaxLines/4:]...)
	}
	if len(ops) == 1 {
		return e.alone(ops[0], "it must take effect after a commit that could not happen before it completed")
	}
	first, last := ops[0], ops[len(ops)-1]
	return fmt.Sprintf("these operations must take effect in this order: %s; but the first could not take effect before time %d and the last completed at %d",
		e.chain(capped), e.g.lower(path[0]), e.m.Ret[last]), e.lines(append(capped, first)...)
}

// explainUnmatched reports the sequences, needed first, that outnumber the
// operations of unknown outcome that could have committed them in time.
func (e *exactChat) explainUnmatched(need []exactUnknown, lst []int64, supplyOp []int32, used []int) (string, []int) {
	u := need[len(need)-1]
	by := e.deadlineOp(u.node, lst)
	var b strings.Builder
	seqs := make([]string, 0, 5)
	for i, n := range need {
		if i == 5 {
			seqs = append(seqs, fmt.Sprintf("and %d more", len(need)-5))
			break
		}
		seqs = append(seqs, fmt.Sprint(n.seq))
	}
	kind := "shown or answered"
	if e.forbidden {
		kind = "needed for gapless order"
	}
	fmt.Fprintf(&b, "sequences %s were %s, but no persist acked as new committed them", strings.Join(seqs, ", "), kind)
	if len(used) == 0 {
		fmt.Fprintf(&b, " and no persist of unknown outcome could have")
	} else {
		fmt.Fprintf(&b, " and only %d persists of unknown outcome could have in time", len(used))
	}
	var ops []int32
	if by >= 0 {
		fmt.Fprintf(&b, ": sequence %d was needed by %s", u.seq, e.desc(by))
	}
	if a := e.m.allocOrder(); a.deadline(u.seq) == lst[u.node] && a.deadlineAck(u.seq) >= 0 {
		// The allocation order set its deadline (allocorder.go).
		ack := a.deadlineAck(u.seq)
		fmt.Fprintf(&b, "; the one that made sequence %d was invoked no later than %s completed, which was acked as creating sequence %d: a persist invoked after that creates above it (sequence_monotonic)", u.seq, e.desc(ack), e.m.Ops[ack].Seq)
		ops = append(ops, ack)
	}
	for i, n := range need {
		if i == 5 {
			break
		}
		if op := e.deadlineOp(n.node, lst); op >= 0 && !slices.Contains(ops, op) {
			ops = append(ops, op)
		}
	}
	for i, j := range used {
		if i == 3 {
			break
		}
		ops = append(ops, supplyOp[j])
	}
	return b.String(), e.lines(ops...)
}

// deadlineOp is the operation whose completion bounds how late node v can
// take effect: along successors of equal latest time to one whose own hi
// sets it.
func (e *exactChat) deadlineOp(v int32, lst []int64) int32 {
	for steps := 0; steps < len(lst); steps++ {
		if v < e.g.real() && e.g.upper(v) == lst[v] && e.g.opOf(v) >= 0 {
			return e.g.opOf(v)
		}
		next := int32(-1)
		for w := range e.g.succ(v) {
			if lst[w] == lst[v] {
				next = w
				break
			}
		}
		if next < 0 {
			return -1
		}
		v = next
	}
	return -1
}
