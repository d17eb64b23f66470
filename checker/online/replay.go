package online

import "github.com/chatseq/chatseq/history"

// A key whose first ok answer is a replay had its message made by one of
// its persists invoked before that answer came that had not failed by
// then: those still outstanding, and those that timed out (info). The
// message was made no earlier than the first of them was invoked, so an
// ack of a sequence at or above the replayed one done before that breaks
// sequence_monotonic (package checker's created says the same of the
// whole history, and reads only the lines up to the replay for it).
//
// Decided as the replay comes: the key's first answer is looked up then
// (the keys waiting are judged first), which costs nothing in a valid
// run, where no such ack comes before a persist that can have made it.
// Only once the header was read (its initial_counter and key_scope: the
// key must be the one the offline check keys by) and the file is in
// order (an ack's time is then no later than the lines after it).

// madeFrom is a persist that can have made its key's message, as
// sequence_monotonic compares it: the chat's newest new ack done before
// it was invoked (none if !hasBefore), and its invoke line.
type madeFrom struct {
	beforeSeq  uint64
	beforeLine int32
	invLine    int32
	hasBefore  bool
}

// earlier is the one of m and c whose newest ack before it is lower (none
// is lowest): the first of them invoked, since that ack only grows with
// time.
func (m madeFrom) earlier(c madeFrom) madeFrom {
	if !c.hasBefore || m.hasBefore && c.beforeSeq < m.beforeSeq {
		return c
	}
	return m
}

// madeFromOf is the open persist op as a madeFrom.
func madeFromOf(op *openOp) madeFrom {
	return madeFrom{beforeSeq: op.newestSeq, beforeLine: op.newestLine, invLine: op.line, hasBefore: op.hasNewest}
}

// judgesReplays reports whether replays are judged (above).
func (o *Checker) judgesReplays() bool { return o.header && !o.disordered }

// timedOut notes a keyed persist answered info: it may have made its key's
// message.
func (o *Checker) timedOut(op *openOp) {
	if !op.keyed || !o.judgesReplays() {
		return
	}
	if o.madeBy == nil {
		o.madeBy = map[keyFP]madeFrom{}
	}
	fp := keyFP{op.chat, op.key, op.key2}
	m := madeFromOf(op)
	if had, ok := o.madeBy[fp]; ok {
		m = had.earlier(m)
	}
	o.madeBy[fp] = m
	o.pruneMade()
}

// replayed judges a keyed persist op answered as a replay by e (before
// its answer is added to the keys waiting).
func (o *Checker) replayed(op *openOp, e *history.Event) {
	if !o.judgesReplays() || e.Seq <= o.initialCounter {
		return
	}
	fp := keyFP{op.chat, op.key, op.key2}
	m, found := o.madeBy[fp]
	o.open.each(func(p *openOp) {
		if p.persist && p.keyed && p.chat == op.chat && p.key == op.key && p.key2 == op.key2 {
			if !found {
				m, found = madeFromOf(p), true
			} else {
				m = m.earlier(madeFromOf(p))
			}
		}
	})
	if !found || !m.hasBefore || m.beforeSeq < e.Seq {
		return
	}
	// The key's first ok answer? Its answers waiting are judged first.
	if len(o.keyed.waiting) > 0 {
		o.settleKeys()
	}
	if _, answered := o.keys[op.chat].get(op.key, op.key2, o.spill); answered {
		return
	}
	o.violate(SequenceMonotonic, []int{int(m.beforeLine), int(m.invLine), e.Line}, e.Time,
		"chat %q: seq %d was acked as a new message at line %d before the persist at line %d was invoked, yet the replay at line %d (the key's first ok answer) puts that persist's key's message (made by it or a later persist of the key, none acked as new before) at seq %d",
		o.names[op.chat], m.beforeSeq, m.beforeLine, m.invLine, e.Line, e.Seq)
}

// madeByPruned bounds how often madeBy is pruned: when it has doubled
// since the last time, and holds at least this many keys.
const madeByPruned = 1 << 12

// pruneMade drops from madeBy the keys answered ok since they timed out
// (a later replay is not their first answer), once it has doubled: kept
// until then, they only cost a look-up at a replay, which finds the key
// answered; dropped as each answer came, the map's deletes were a tenth
// of the online check's time.
func (o *Checker) pruneMade() {
	if len(o.madeBy) < max(madeByPruned, 2*o.madeByKept) {
		return
	}
	for fp := range o.madeBy {
		if _, answered := o.keys[fp.chat].get(fp.k1, fp.k2, o.spill); answered {
			delete(o.madeBy, fp)
		}
	}
	o.madeByKept = len(o.madeBy)
}
