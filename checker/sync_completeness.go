package checker

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/chatseq/chatseq/checker/internal/columns"
	"github.com/chatseq/chatseq/checker/internal/store"
)

// NameSyncCompleteness is the invariant's name as HISTORY.md spells it.
const NameSyncCompleteness = "sync_completeness"

// known is one sequence of a chat that some message is known to hold: it
// was acknowledged, or it is in the final messages table.
type known struct {
	seq uint64
	ack int64 // earliest ack time; timeMax if never acknowledged
	op  int32 // the earliest ack's operation, -1
	msg int32 // a final messages line at seq, -1
}

// knownSeqs merges chat c's acks and final messages by sequence.
func (x *index) knownSeqs(c int32, buf []known) []known {
	buf = buf[:0]
	alo, ahi := store.Span(x.AckSpan, c)
	for _, o := range x.Acks[alo:ahi] {
		s, t := x.AckSeq(o), x.Ret(o)
		if n := len(buf); n > 0 && buf[n-1].seq == s {
			if t < buf[n-1].ack {
				buf[n-1].ack, buf[n-1].op = t, o
			}
			continue
		}
		buf = append(buf, known{seq: s, ack: t, op: o, msg: -1})
	}
	mlo, mhi := store.Span(x.MsgSpan, c)
	nAcked := len(buf)
	i := 0
	for _, m := range x.Msgs[mlo:mhi] {
		s := x.Fin.At(m).Seq
		for i < nAcked && buf[i].seq < s {
			i++
		}
		if i < nAcked && buf[i].seq == s {
			if buf[i].msg < 0 {
				buf[i].msg = m
			}
			continue
		}
		if n := len(buf); n > nAcked && buf[n-1].seq == s {
			continue
		}
		buf = append(buf, known{seq: s, ack: store.TimeMax, op: -1, msg: m})
	}
	if len(buf) > nAcked {
		slices.SortFunc(buf, func(a, b known) int { return cmp.Compare(a.seq, b.seq) })
	}
	return buf
}

func (k known) line(x *index) int {
	if k.op >= 0 {
		return x.DoneLine(k.op)
	}
	return int(x.Fin.At(k.msg).Line)
}

// syncScan carries the per-check state of the late-commit scan.
type syncScan struct {
	late, lateAfterReturn int
	example               string
	work, budget          int
}

// checkSyncCompleteness judges every sync that completed ok: its result is
// strictly ascending, above `after`, at most `limit` long, names messages
// that exist with their message_id, and includes every message of the chat
// acknowledged before the sync was invoked with a sequence above `after`
// (up to the last returned sequence when the page is full). It also counts
// late commits below a cursor, reported as a warning.
func checkSyncCompleteness(x *index) (Result, int) {
	v := newVerdict(NameSyncCompleteness)
	scan := &syncScan{budget: 50_000_000}
	ks := make([]known, 0, store.MaxSpan(x.AckSpan)+store.MaxSpan(x.MsgSpan))
	byAck := make([]int32, 0, cap(ks))
	var syncs []int32
	var buf store.SyncBuf // each sync's answer, decoded once for the four passes
	var fins finalHashes
	var ranks knownRanks
	total, unverified := 0, 0
	for c := int32(0); c < int32(len(x.ChatNames)); c++ {
		lo, hi := store.Span(x.SyncSpan, c)
		syncs = append(syncs[:0], x.SyncsByChat[lo:hi]...) // sorted below
		if len(syncs) == 0 {
			continue
		}
		total += len(syncs)
		slices.SortStableFunc(syncs, func(a, b int32) int { return cmp.Compare(x.Call(a), x.Call(b)) })
		ks = x.knownSeqs(c, ks)
		ranks.build(ks)
		if x.HasMessages {
			fins.build(x, c)
		}
		byAck = byAck[:0]
		for i := range ks {
			if ks[i].ack != store.TimeMax {
				byAck = append(byAck, int32(i))
			}
		}
		slices.SortFunc(byAck, func(a, b int32) int { return cmp.Compare(ks[a].ack, ks[b].ack) })
		fw := make(columns.Fenwick, len(ks)+1)
		seen := make([]bool, len(ks))
		p := 0
		for _, y := range syncs {
			for p < len(byAck) && ks[byAck[p]].ack < x.Call(y) {
				fw.Add(int(byAck[p]))
				p++
			}
			seqs, ids, ok := x.SyncResult(y, &buf)
			if ok && !x.syncWellFormed(v, c, y, seqs, ids) {
				continue
			}
			if ok {
				unverified += x.syncExists(v, c, y, seqs, ids, ks, &fins)
			}
			x.syncCovers(v, c, y, seqs, &ranks, fw)
			scan.lateCommits(x, c, y, seqs, &ranks, seen)
		}
	}
	if total == 0 {
		syncs := 0
		for i := range x.Ops.Count() {
			if x.Ops.At(i).Fn == store.FnSync {
				syncs++
			}
		}
		if syncs == 0 {
			v.notApplicable("no sync in the history")
		} else {
			v.notApplicable("no sync completed ok (%s invoked)", plural(syncs, "sync"))
		}
		return v.result(), 0
	}
	if unverified > 0 {
		v.note("%s returned by syncs could not be verified to exist (no final messages lines, never acknowledged)", plural(unverified, "sequence"))
	}
	if said, uncompared := x.syncContent(v); said > 0 {
		v.note("key, sender or content hash given for %s: %d compared with what their persists sent or the final messages table stores", plural(said, "returned message"), said-uncompared)
	}
	if scan.late > 0 {
		x.Warn("late commits below a cursor: %s got a sequence below one a sync had already returned without it (acknowledged only after that sync returned, or never: %d), e.g. %s; a client whose cursor passed such a message never sees it. A design that allocates a sequence before it commits the message allows this, and ADR-001's sync_completeness as written does not cover it",
			plural(scan.late, "message"), scan.lateAfterReturn, scan.example)
	}
	if scan.work > scan.budget {
		x.Warn("late-commit scan stopped after %d steps: the count is a lower bound", scan.budget)
	}
	v.pass("%s judged", plural(total, "sync"))
	return v.result(), scan.late
}

// syncWellFormed checks the shape of y's result, seqs and ids.
func (x *index) syncWellFormed(v *verdict, c int32, y int32, seqs, ids []uint64) bool {
	lines := x.OpLines(y)
	dl, after, limit := x.DoneLine(y), x.After(y), x.Limit(y)
	switch {
	case len(ids) != len(seqs):
		v.fail(lines, "sync at line %d on chat %q returned %d seqs but %d message_ids", dl, x.ChatNames[c], len(seqs), len(ids))
		return false
	case limit > 0 && len(seqs) > limit:
		v.fail(lines, "sync at line %d on chat %q returned %d messages, above its limit %d", dl, x.ChatNames[c], len(seqs), limit)
		return false
	}
	for i, s := range seqs {
		if s <= after {
			v.fail(lines, "sync at line %d on chat %q returned seq %d, not above after=%d", dl, x.ChatNames[c], s, after)
			return false
		}
		if i > 0 && s <= seqs[i-1] {
			v.fail(lines, "sync at line %d on chat %q returned seq %d after %d: not strictly ascending", dl, x.ChatNames[c], s, seqs[i-1])
			return false
		}
	}
	return true
}

// syncExists checks every returned (seq, message_id) against the final
// messages table, or without it against the acks; it returns how many it
// could verify neither way.
func (x *index) syncExists(v *verdict, c int32, y int32, seqs, ids []uint64, ks []known, fins *finalHashes) (unverified int) {
	dl := x.DoneLine(y)
	mlo, mhi := store.Span(x.MsgSpan, c)
	msgs, from, kat := x.Msgs[mlo:mhi], 0, 0
	for i, s := range seqs {
		id := ids[i]
		if x.HasMessages {
			if fins.holds(s, id) {
				continue
			}
			var found bool
			var at int32
			found, at, from = x.HasMsgHashFrom(msgs, from, s, id)
			if !found {
				lines := []int{dl}
				what := "no final message has that sequence"
				if at >= 0 {
					lines = append(lines, int(x.Fin.At(at).Line))
					what = fmt.Sprintf("the final table holds %q there (line %d)", x.MidName(x.Fin.At(at).MessageID), x.Fin.At(at).Line)
					v.fail(lines, "sync at line %d on chat %q returned seq %d with another message id, but %s", dl, x.ChatNames[c], s, what)
					continue
				}
				v.fail(lines, "sync at line %d on chat %q returned seq %d but %s", dl, x.ChatNames[c], s, what)
			}
			continue
		}
		k, ok := columns.SearchFrom(ks, kat, s, compareKnown)
		kat = k
		switch {
		case !ok || ks[k].op < 0:
			unverified++
		case x.MidHash[x.AckID(ks[k].op)] != id:
			v.fail([]int{x.DoneLine(ks[k].op), dl}, "sync at line %d on chat %q returned seq %d with another message id than it was acknowledged with, %q (line %d)",
				dl, x.ChatNames[c], s, x.MidName(x.AckID(ks[k].op)), x.DoneLine(ks[k].op))
		}
	}
	return unverified
}

// syncCovers checks that y returned every message acknowledged before it
// was invoked within its range; fw marks exactly those acknowledged
// messages.
func (x *index) syncCovers(v *verdict, c int32, y int32, seqs []uint64, r *knownRanks, fw columns.Fenwick) {
	ks := r.ks
	after, limit, il, dl := x.After(y), x.Limit(y), x.InvLine(y), x.DoneLine(y)
	lo := r.rankAbove(after)
	hi := len(ks)
	if limit > 0 && len(seqs) == limit {
		hi = r.rankAbove(seqs[len(seqs)-1]) // a full page answers up to its last sequence
	}
	if lo >= hi {
		return
	}
	need := fw.Sum(hi) - fw.Sum(lo)
	call := x.Call(y)
	present := 0
	at := lo
	for _, s := range seqs {
		k, ok := r.find(s, at)
		if ok && ks[k].ack < call {
			present++
		}
		at = k
	}
	if need <= present {
		return
	}
	if v.Fails() >= 100 { // enough examples: do not pay a scan per broken sync
		v.fail([]int{il, dl}, "sync at line %d on chat %q missed %d messages acknowledged before it was invoked", dl, x.ChatNames[c], need-present)
		return
	}
	for k := lo; k < hi; k++ {
		if ks[k].ack < call {
			if _, in := slices.BinarySearch(seqs, ks[k].seq); !in {
				v.fail([]int{il, dl, x.DoneLine(ks[k].op)}, "sync at line %d on chat %q (after=%d, limit=%d) missed seq %d, acknowledged at line %d before the sync was invoked (%d such messages missed)",
					dl, x.ChatNames[c], after, limit, ks[k].seq, x.DoneLine(ks[k].op), need-present)
				return
			}
		}
	}
}

// lateCommits counts messages with a sequence between y's after and the
// highest sequence y returned, that y did not return and that were not
// acknowledged before y was invoked (those are sync_completeness failures):
// they became visible below a cursor that had already passed them. seen
// keeps a message skipped by several syncs from counting twice.
func (s *syncScan) lateCommits(x *index, c int32, y int32, seqs []uint64, r *knownRanks, seen []bool) {
	if len(seqs) == 0 || s.work > s.budget {
		return
	}
	top := seqs[len(seqs)-1]
	call, ret := x.Call(y), x.Ret(y)
	j := 0
	ks := r.ks
	for k := r.rankAbove(x.After(y)); k < len(ks) && ks[k].seq < top; k++ {
		s.work++
		for j < len(seqs) && seqs[j] < ks[k].seq {
			j++
		}
		if (j < len(seqs) && seqs[j] == ks[k].seq) || ks[k].ack < call || seen[k] {
			continue
		}
		seen[k] = true
		s.late++
		if ks[k].ack > ret {
			s.lateAfterReturn++
		}
		if s.example == "" {
			s.example = fmt.Sprintf("chat %q seq %d (line %d) below the seq %d returned by the sync at line %d", x.ChatNames[c], ks[k].seq, ks[k].line(x), top, x.DoneLine(y))
		}
	}
}

// finalHashes is one chat's final messages as the message id hash at each
// sequence from base on, 0 where there is none: a sync's answer is checked
// against it by index, and only what it does not hold is looked up in the
// table itself (hasMsgHashFrom). Each look-up there read an id's hash in an array of
// all ids, a cache miss for each of a 5M-persist history's 28M answered
// messages.
type finalHashes struct {
	base  uint64
	bySeq []uint64
}

// build fills f with chat c's final messages, or leaves it empty when
// their sequences are too sparse for a table (a corrupt or hostile one).
func (f *finalHashes) build(x *index, c int32) {
	f.bySeq = f.bySeq[:0]
	mlo, mhi := store.Span(x.MsgSpan, c)
	msgs := x.Msgs[mlo:mhi]
	if len(msgs) == 0 {
		return
	}
	first, last := x.Fin.At(msgs[0]).Seq, x.Fin.At(msgs[len(msgs)-1]).Seq
	size, ok := columns.TableSize(first, last, len(msgs))
	if !ok {
		return
	}
	f.base = first
	f.bySeq = slices.Grow(f.bySeq, size)[:size]
	clear(f.bySeq)
	for _, m := range msgs {
		// Of several messages at one sequence the last is kept: a sync
		// naming another is looked up in the table itself.
		r := x.Fin.At(m)
		f.bySeq[r.Seq-first] = x.MidHash[r.MessageID]
	}
}

// holds reports whether a final message at seq has an id of hash h.
func (f *finalHashes) holds(seq, h uint64) bool {
	return h != 0 && seq >= f.base && seq-f.base < uint64(len(f.bySeq)) && f.bySeq[seq-f.base] == h
}

// knownRanks places a sequence among one chat's knowns: its rank is the
// first known at or above it, read from a table (seqRanks) unless the
// knowns are too sparse for one.
type knownRanks struct {
	ks    []known
	table columns.SeqRanks
}

// build makes r the ranks of ks, sorted by sequence, each sequence once.
func (r *knownRanks) build(ks []known) {
	r.ks = ks
	r.table.Build(len(ks), func(i int) uint64 { return ks[i].seq })
}

// rank is the index of the first known at or above s.
func (r *knownRanks) rank(s uint64) int { return columns.Place(&r.table, r.ks, s, 0, compareKnown) }

// rankAbove is the number of r.ks at or below s: the index of the first
// above it. rank(s+1) would wrap at 2^64-1, above which nothing is.
func (r *knownRanks) rankAbove(s uint64) int {
	if s == math.MaxUint64 {
		return len(r.ks)
	}
	return r.rank(s + 1)
}

// find is s's index among r.ks and whether it is there; at is where a
// search would start (searchFrom).
func (r *knownRanks) find(s uint64, at int) (int, bool) {
	k := columns.Place(&r.table, r.ks, s, at, compareKnown)
	return k, k < len(r.ks) && r.ks[k].seq == s
}

func judgeSyncCompleteness(j *judging) Result {
	res, late := checkSyncCompleteness(j.x)
	j.stats.late = late
	return res
}

// compareKnown orders knowns by sequence.
func compareKnown(k known, s uint64) int { return cmp.Compare(k.seq, s) }
