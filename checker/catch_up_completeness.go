package checker

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/chatseq/chatseq/checker/internal/store"
	"github.com/chatseq/chatseq/history"
)

// NameCatchUpCompleteness is the invariant's name as HISTORY.md spells it.
const NameCatchUpCompleteness = "catch_up_completeness"

// catch_up_completeness (contract catch_up: cursor). ADR-001 §4's clients
// catch up by cursor: a sync asks for sequence > the last sequence the
// client received, and gaps never make it wait (ADR-001 §6, ADR-004's "Gap
// Safety"). So a message that commits below a sequence a reader has already
// received is never asked for again. The invariant, from the history alone
// (FORMAT.md, "Readers"):
//
//   - a reader is a (process, chat) with at least one sync carrying
//     "reader": true;
//   - it received (seq, message_id) when one of its syncs on the chat that
//     completed ok returned that pair;
//   - it followed its chat past seq s when one of its marked syncs that
//     completed ok had after < s and returned a sequence above s;
//   - every persisted message (the final messages table; without it, every
//     acknowledged message) that a reader followed its chat past, that
//     reader received.
//
// A miss is the smallest counterexample: the sync that passed the message
// (its invoke and completion lines) and the message's line.

// readerKey identifies a reader: one process's syncs on one chat.
type readerKey struct {
	process int
	chat    int32
}

// reader is one catch-up client and its syncs that completed ok, marked
// or not.
type reader struct {
	key    readerKey
	syncs  []int32
	marked int // its syncs (any outcome) that carry "reader": true
}

// readers groups the history's readers by chat, then process; marked counts
// the syncs that carry "reader": true.
func (x *index) readers() (rs []reader, marked int) {
	groups := map[readerKey]int{}
	for i := range x.Ops.Count() {
		if x.Ops.At(i).Fn != store.FnSync || !x.Ops.At(i).Reader() {
			continue
		}
		k := readerKey{process: int(x.Ops.At(i).Process), chat: x.Ops.At(i).Chat}
		g, ok := groups[k]
		if !ok {
			g = len(rs)
			groups[k] = g
			rs = append(rs, reader{key: k})
		}
		rs[g].marked++
		marked++
	}
	if marked == 0 {
		return nil, 0
	}
	for i := range x.Ops.Count() {
		o := int32(i)
		if x.Ops.At(i).Fn != store.FnSync || x.Ops.At(i).Status != store.StOK {
			continue
		}
		if g, ok := groups[readerKey{process: int(x.Ops.At(i).Process), chat: x.Ops.At(i).Chat}]; ok {
			rs[g].syncs = append(rs[g].syncs, o)
		}
	}
	slices.SortFunc(rs, func(a, b reader) int {
		return cmp.Or(cmp.Compare(a.key.chat, b.key.chat), cmp.Compare(a.key.process, b.key.process))
	})
	return rs, marked
}

// catchUpAbsent says why a history holds none of the evidence the
// invariant reads, or returns "".
func catchUpAbsent(x *index, rs []reader, marked int) string {
	if len(rs) == 0 {
		return `no reader syncs (no sync carries "reader": true): no client caught up by cursor (bench --readers N adds them)`
	}
	ok := 0
	for i := range rs {
		ok += len(rs[i].syncs)
	}
	switch {
	case ok == 0:
		return fmt.Sprintf("no reader sync completed ok (%s invoked)", plural(marked, "reader sync"))
	case !x.HasMessages && len(x.Acks) == 0:
		return "nothing is known to be persisted: no final messages lines and no acknowledged persist"
	}
	return ""
}

// readerSpan is one marked sync of a reader: it passed every sequence
// strictly between after and top, the highest it returned.
type readerSpan struct {
	after, top uint64
	op         int32
}

// receivedMsg is a (seq, message_id) a reader's sync returned; syncs'
// message ids are kept as hashes (midHash of an interned id).
type receivedMsg struct {
	seq uint64
	id  uint64
}

// checkCatchUpCompleteness judges every reader; rs is non-empty (see
// catchUpAbsent). It returns the (reader, message) pairs missed.
func checkCatchUpCompleteness(x *index, rs []reader) (Result, int) {
	v := newVerdict(NameCatchUpCompleteness)
	var (
		msgs      []store.PersistedMsg
		missedMsg []bool // by index in msgs: some reader of the chat missed it
		spans     []readerSpan
		got       []receivedMsg
	)
	chats, syncs, passed, missedMsgs, readersMissing := 0, 0, 0, 0, 0
	missed := 0
	for i := 0; i < len(rs); {
		c := rs[i].key.chat
		msgs = x.PersistedIn(c, msgs)
		missedMsg = slices.Grow(missedMsg[:0], len(msgs))[:len(msgs)]
		clear(missedMsg)
		chats++
		for ; i < len(rs) && rs[i].key.chat == c; i++ {
			r := &rs[i]
			syncs += len(r.syncs)
			spans, got = x.readerView(r, spans[:0], got[:0])
			before := missed
			// Walk the messages upward; best is the marked sync with the
			// highest top among those with after below the message.
			best, j := -1, 0
			k := 0
			for m := range msgs {
				s := msgs[m].Seq
				for ; j < len(spans) && spans[j].after < s; j++ {
					if best < 0 || spans[j].top > spans[best].top {
						best = j
					}
				}
				if best < 0 || spans[best].top <= s {
					continue // the reader's cursor has not passed s
				}
				passed++
				for k < len(got) && got[k].seq < s {
					k++
				}
				if receivedAt(got[k:], s, x.MidHash[msgs[m].ID]) {
					continue
				}
				missed++
				if !missedMsg[m] {
					missedMsg[m] = true
					missedMsgs++
				}
				y := spans[best].op
				lines := []int{x.InvLine(y), x.DoneLine(y), msgs[m].Line}
				if v.Fails() == 0 {
					v.fail(lines, "%s", x.describeMiss(r, &msgs[m], spans[best]))
				} else {
					v.CountFail() // the first example stands: every one has three lines
				}
			}
			if missed > before {
				readersMissing++
			}
		}
	}
	source := "persisted"
	if !x.HasMessages {
		source = "acknowledged"
		v.note("no final messages lines: judged over acknowledged messages only")
	}
	if missed > 0 {
		v.note("%s missed by %s of %s", plural(missedMsgs, source+" message"), plural(readersMissing, "reader"), plural(len(rs), "reader"))
	}
	procs := map[int]bool{}
	for i := range rs {
		procs[rs[i].key.process] = true
	}
	processes := "1 process"
	if len(procs) != 1 {
		processes = fmt.Sprintf("%d processes", len(procs))
	}
	v.pass("%s (%s) on %s (%s): every %s message a reader's cursor passed was received (%s)",
		plural(len(rs), "reader"), processes, plural(chats, "chat"), plural(syncs, "sync"), source, plural(passed, "reader-message pair"))
	return v.result(), missed
}

// readerView returns r's marked syncs as spans, sorted by after, and every
// (seq, message_id) its syncs returned, sorted by seq.
func (x *index) readerView(r *reader, spans []readerSpan, got []receivedMsg) ([]readerSpan, []receivedMsg) {
	var buf store.SyncBuf
	for _, y := range r.syncs {
		seqs, ids, ok := x.SyncResult(y, &buf)
		if !ok {
			continue
		}
		for k, s := range seqs {
			var id uint64
			if k < len(ids) {
				id = ids[k]
			}
			got = append(got, receivedMsg{seq: s, id: id})
		}
		if !x.Ops.At(y).Reader() || len(seqs) == 0 {
			continue
		}
		top := slices.Max(seqs) // ascending when well formed; sync_completeness judges that
		if after := x.After(y); top > after {
			spans = append(spans, readerSpan{after: after, top: top, op: y})
		}
	}
	slices.SortFunc(spans, func(a, b readerSpan) int {
		return cmp.Or(cmp.Compare(a.after, b.after), cmp.Compare(a.op, b.op))
	})
	slices.SortFunc(got, func(a, b receivedMsg) int { return cmp.Compare(a.seq, b.seq) })
	return spans, got
}

// receivedAt reports whether got, from its first entry with seq >= s,
// holds (s, id).
func receivedAt(got []receivedMsg, s uint64, id uint64) bool {
	for _, g := range got {
		if g.seq != s {
			return false
		}
		if g.id == id {
			return true
		}
	}
	return false
}

// describeMiss explains one missed message: which sync passed it, and
// when the message was acknowledged relative to that sync.
func (x *index) describeMiss(r *reader, m *store.PersistedMsg, sp readerSpan) string {
	where := fmt.Sprintf("final line %d", m.Line)
	if m.Fin < 0 {
		where = fmt.Sprintf("acknowledged at line %d", m.Line)
	}
	when := "it was never acknowledged (no persist of it ended ok)"
	if ack := x.EarliestAck(r.key.chat, m.Seq, m.ID); ack >= 0 {
		switch {
		case x.Ret(ack) < x.Call(sp.op):
			when = fmt.Sprintf("it was acknowledged at line %d, before that sync was invoked", x.DoneLine(ack))
		case x.Ret(ack) > x.Ret(sp.op):
			when = fmt.Sprintf("it was acknowledged at line %d, after that sync returned: it committed below a cursor that had passed it", x.DoneLine(ack))
		default:
			when = fmt.Sprintf("it was acknowledged at line %d, while that sync ran", x.DoneLine(ack))
		}
	}
	return fmt.Sprintf("reader process %d on chat %q never received seq %d (%q, %s): its sync at line %d (after=%d) returned seq %d without it, so its cursor passed %d, and none of its %s returned it; %s",
		r.key.process, x.ChatNames[r.key.chat], m.Seq, x.MidName(m.ID), where, x.DoneLine(sp.op), sp.after, sp.top, m.Seq,
		plural(len(r.syncs), "sync"), when)
}

// catchUpPromise: ADR-001 §4's clients catch up by cursor (catch_up:
// cursor); catch_up: none promises them nothing.
func catchUpPromise(j *judging) promise {
	switch j.con.CatchUp {
	case history.CatchUpCursor:
		return promise{}
	case history.CatchUpNone:
		return notPromised("contract catch_up: none (the design promises catch-up clients nothing)")
	}
	return undefinedValueCutShort(history.FieldCatchUp, j.con.CatchUp)
}

// catchUpEvidence says why the history holds no catch-up to judge.
func catchUpEvidence(j *judging) string {
	rs, marked := j.readers()
	return catchUpAbsent(j.x, rs, marked)
}

func judgeCatchUpCompleteness(j *judging) Result {
	rs, _ := j.readers()
	res, missed := checkCatchUpCompleteness(j.x, rs)
	j.stats.missed = missed
	return res
}

// tallyCatchUp counts catch_up_missed unpromised: a fact of the run.
func tallyCatchUp(j *judging) { judgeCatchUpCompleteness(j) }
