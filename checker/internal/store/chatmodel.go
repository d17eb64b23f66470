package store

import (
	"math"
	"slices"
	"sort"

	"github.com/anishathalye/porcupine"
	"github.com/chatseq/chatseq/checker/linearize"
	"github.com/chatseq/chatseq/history"
)

// The linearizability model of a chat as the Index holds it: which
// operations the model takes (KindsOf), and the chat's linearize.Chat with
// its operations' intervals (ChatModel), which package linearize decides.

// linKindOf classifies operation o for the model, 0 if it is left out.
// Failed operations other than a rejection are left out: they had no
// effect and are legal anywhere. Syncs that did not complete ok tell
// nothing. An operation of unknown outcome is left out when it cannot have
// taken effect: another persist of its key was acked as the key's new
// message (in the model two commits of one key are never legal, so this
// loses nothing), or the final table, which lists keys, has no message
// with its key and none whose key is not known may be its (KeylessMayHold).
// Left in, each would let porcupine try it at every point of the history.
// KindsOf is every operation's linKindOf, worked out once in the records'
// order: asked per chat, in each chat's invoke order, every look-up was a
// cache miss, three times an operation, a fifth of the check after a run
// (before the Log kept each chat's records together, columns.Grouped).
func (x *Index) KindsOf(reject bool) []linearize.Kind {
	x.kindsMu.Lock()
	defer x.kindsMu.Unlock()
	if x.kinds == nil || x.kindsReject != reject {
		kinds := make([]linearize.Kind, x.Ops.Len())
		for o := range x.Ops.Count() {
			kinds[o] = x.linKindOf(o, reject)
		}
		x.kinds, x.kindsReject = kinds, reject
	}
	return x.kinds
}

func (x *Index) linKindOf(o int32, reject bool) linearize.Kind {
	st := x.Ops.At(o).Status
	switch {
	case x.Ops.At(o).Fn == FnSync:
		if st == StOK {
			return linearize.KindSync
		}
	case x.Ops.At(o).Key < 0:
		// keyless persist: cannot be modelled (warned when indexed)
	case st == StOK:
		if x.IsDedup(o) {
			return linearize.KindDedup
		}
		return linearize.KindNew
	case st == StFail:
		if reject && x.IsRejection(o) {
			return linearize.KindRejected
		}
	case x.KeyCreated[x.Ops.At(o).Key]:
	case x.KeyMsg[x.Ops.At(o).Key] >= 0 || !x.HasMessages:
		return linearize.KindInfo
	case x.KeylessAnywhere(o):
		return linearize.KindInfo
	}
	return 0
}

// KeylessMayHold reports whether a final message of chat c whose key is
// not known may be the one key k's persist made: one above
// initial_counter with no key at all, or without a sender (key_scope
// client) under k's text. A line under another text is another key's,
// whoever sent it, and one at or below initial_counter was there before
// the run (a persist of the run can only have replayed it: the model
// places it, PreKeylessLine), so neither can make a persist of k (of
// unknown outcome, with no line of its own) one that may have committed.
func (x *Index) KeylessMayHold(c, k int32) bool {
	if x.KeylessMsgIn[c] == 0 {
		return false
	}
	x.keylessOnce.Do(x.gatherKeylessTexts)
	t := x.keylessTexts[c].run
	if t.untexted {
		return true
	}
	_, named := t.texts[x.KeyText(k)]
	return named
}

// UntextedMessages reports whether a final message carries no key at all
// (not even a key text without a sender).
func (x *Index) UntextedMessages() bool {
	if x.KeylessMsgs == 0 {
		return false
	}
	x.keylessOnce.Do(x.gatherKeylessTexts)
	for _, t := range x.keylessTexts {
		if t.all.untexted {
			return true
		}
	}
	return false
}

// keylessTextsOf is a chat's final messages whose key is not known: all
// of them, and those above initial_counter (run).
type keylessTextsOf struct{ all, run keylessTexts }

// keylessTexts is some final messages whose key is not known: whether one
// has no key at all (untexted), and the key texts of the others.
type keylessTexts struct {
	untexted bool
	texts    map[string]struct{}
}

// note adds a line's key text (untexted if it has none).
func (t *keylessTexts) note(text string, texted bool) {
	if !texted {
		t.untexted = true
		return
	}
	if t.texts == nil {
		t.texts = map[string]struct{}{}
	}
	t.texts[text] = struct{}{}
}

func (x *Index) gatherKeylessTexts() {
	x.keylessTexts = map[int32]keylessTextsOf{}
	for _, i := range x.Msgs {
		f := x.Fin.At(i)
		if f.Key >= 0 {
			continue
		}
		t := x.keylessTexts[f.Chat]
		text, texted := x.SenderlessKey[i]
		t.all.note(text, texted)
		if f.Seq > x.InitialCounter {
			t.run.note(text, texted)
		}
		x.keylessTexts[f.Chat] = t
	}
}

// ChatModel builds chat c's model and its operations'
// intervals; porcupine's operations and the waits only with forPorcupine
// (the exact checker needs neither).
func (x *Index) ChatModel(c int32, con history.Contract, forPorcupine bool) (*linearize.Chat, []porcupine.Operation) {
	m := linearize.NewChat(opNames{x}, x.ChatNames[c], con.Gaps == history.GapsForbidden, con.KeyReuse == history.KeyReuseReject, !x.SoleWriter, x.InitialCounter)
	if fi, _ := x.CounterOf(c); fi >= 0 {
		m.SetFinalCounter(x.Fin.At(fi).Value())
	}
	lo, hi := Span(x.OpChatSpan, c)
	kinds := x.KindsOf(m.Reject)
	// Sized for every operation rather than counted first: the few left
	// out cost less room than a pass of cache misses over the chat.
	n := int(hi - lo)
	slo, shi := Span(x.SyncSpan, c)
	nsync := int(shi - slo)
	m.Ops = make([]linearize.Op, 0, n)
	m.Syncs = make([]linearize.Sync, 0, nsync)
	m.Call, m.Ret = make([]int64, 0, n), make([]int64, 0, n)
	if m.Base > 0 {
		m.MessagesRead = x.HasMessages
		m.PreFinal, m.PreRunKeySeq = map[uint64]uint64{}, map[int32]uint64{}
		flo, fhi := Span(x.MsgSpan, c)
		for _, i := range x.Msgs[flo:fhi] {
			f := x.Fin.At(i)
			if f.Seq <= m.Base {
				m.PreFinal[f.Seq] = x.MidHash[f.MessageID]
				if f.Key < 0 {
					// Some key's from before the run: perhaps a rejected one's.
					text, texted := x.SenderlessKey[i]
					m.PreKeyless = append(m.PreKeyless, linearize.PreKeylessLine{Seq: f.Seq, Text: text, Texted: texted})
				}
			}
			if f.Key >= 0 {
				m.PreRunKeySeq[f.Key] = f.Seq
			}
		}
		// An idempotency record is its message's: it shows one too,
		// whoever's key it is (oracle seed 1207502: a record without a
		// sender from before the run that a sync left out).
		for _, r := range x.RecordsOf(c) {
			f := x.Fin.At(r)
			if f.Seq <= m.Base {
				if _, had := m.PreFinal[f.Seq]; !had {
					m.PreFinal[f.Seq] = x.MidHash[f.MessageID]
				}
				if text, ok := x.SenderlessKey[r]; ok && f.Key < 0 {
					m.PreKeylessRecords = append(m.PreKeylessRecords, linearize.PreKeylessLine{Seq: f.Seq, Text: text, Texted: true})
				}
			}
			if k := f.Key; k >= 0 {
				if _, had := m.PreRunKeySeq[k]; !had {
					m.PreRunKeySeq[k] = f.Seq
				}
			}
		}
	}
	// What the final state gives a key of the history is that key's
	// message: no other writer's, no other key's. Records first, then
	// messages, which win where both give a sequence.
	owners := [][]int32{x.RecordsOf(c), nil}
	if x.HasMessages {
		flo, fhi := Span(x.MsgSpan, c)
		owners[1] = x.Msgs[flo:fhi]
	}
	first, last, n := uint64(math.MaxUint64), uint64(0), 0
	for _, lines := range owners {
		for _, i := range lines {
			if f := x.Fin.At(i); f.Key >= 0 {
				first, last, n = min(first, f.Seq), max(last, f.Seq), n+1
			}
		}
	}
	for _, lines := range owners {
		for _, i := range lines {
			if f := x.Fin.At(i); f.Key >= 0 && x.KeyUsed(f.Key) {
				if m.Owned == nil {
					m.Owned = linearize.NewSeqKeys(first, last, n)
				}
				m.Owned.Set(f.Seq, f.Key)
			}
		}
	}
	// Final lines (records or messages) whose key no persist of the chat
	// used are other writers' (or phantoms): no commit of the history is
	// at their sequence.
	var others []uint64
	noOnes := x.keylessNoOnesOf(c)
	for _, lines := range owners {
		for _, i := range lines {
			if f := x.Fin.At(i); f.Seq > m.Base && (f.Key == FinKeyUnsent || f.Key >= 0 && !x.KeyUsed(f.Key) || f.Key == FinKeyless && noOnes(i)) {
				others = append(others, f.Seq)
			}
		}
	}
	m.SetOthers(others)
	if m.External && x.HasMessages {
		m.TableRead = true
		m.Foreign = map[uint64]uint64{}
		flo, fhi := Span(x.MsgSpan, c)
		for _, i := range x.Msgs[flo:fhi] {
			f := x.Fin.At(i)
			if k := f.Key; k < 0 || !x.KeyUsed(k) {
				m.Foreign[f.Seq] = x.MidHash[f.MessageID]
			}
		}
	}
	for _, o := range x.OpsByChat[lo:hi] {
		kind := kinds[o]
		if kind == 0 {
			continue
		}
		lop := linearize.Op{Kind: kind, Op: o, Key: x.Ops.At(o).Key}
		switch kind {
		case linearize.KindSync:
			y := linearize.Sync{After: x.After(o), Limit: x.Limit(o)}
			if seqs, ids, ok := x.SyncResult(o, nil); ok {
				y.Seqs = seqs
				y.IDs = ids // decoded for the model, which only reads them
				if len(ids) != len(seqs) {
					y.IDs = make([]uint64, len(seqs)) // all 0: sync_completeness fails it
				}
				y.Answered = len(seqs)
				if y.Limit > 0 && len(seqs) == y.Limit {
					y.Top = seqs[len(seqs)-1]
				}
				// Messages at or below the initial counter predate the
				// run: what a sync shows of them is not the model's.
				if m.Base > 0 && slices.IsSorted(seqs) {
					// The first above Base (Base+1 wraps at 2^64-1).
					k := sort.Search(len(seqs), func(i int) bool { return seqs[i] > m.Base })
					y.Pre, y.PreIDs = y.Seqs[:k], y.IDs[:k]
					y.Seqs, y.IDs = y.Seqs[k:], y.IDs[k:]
				}
			}
			lop.Sync = int32(len(m.Syncs))
			m.Syncs = append(m.Syncs, y)
		case linearize.KindNew, linearize.KindDedup:
			lop.Seq, lop.ID = x.AckSeq(o), x.MidHash[x.AckID(o)]
		case linearize.KindInfo:
			if fm := x.KeyMsg[lop.Key]; fm >= 0 {
				lop.Seq, lop.ID = x.Fin.At(fm).Seq, x.MidHash[x.Fin.At(fm).MessageID]
			} else if fr := x.KeyIdem[lop.Key]; fr >= 0 && !x.HasMessages {
				// Without the messages table, the key's record says where
				// its message is (a record is written with its message).
				lop.Seq, lop.ID = x.Fin.At(fr).Seq, x.MidHash[x.Fin.At(fr).MessageID]
			}
		}
		if kind != linearize.KindSync {
			lop.Hash = x.Ops.At(o).Payload
		}
		m.Ops = append(m.Ops, lop)
		m.Call, m.Ret = append(m.Call, x.Call(o)), append(m.Ret, x.Ret(o))
	}
	if !forPorcupine {
		return m, nil
	}
	return m, m.PorcupineOps()
}

// opNames names the index's operations for the linearizability engine
// (linearize.History).
type opNames struct{ x *Index }

func (n opNames) InvokeLine(op int32) int   { return n.x.InvLine(op) }
func (n opNames) DoneLine(op int32) int     { return n.x.DoneLine(op) }
func (n opNames) Lines(op int32) []int      { return n.x.OpLines(op) }
func (n opNames) Process(op int32) int      { return int(n.x.Ops.At(op).Process) }
func (n opNames) Key(op int32) string       { return n.x.KeyName(op) }
func (n opNames) ErrorCode(op int32) string { return n.x.ErrCode(op) }
func (n opNames) Ack(op int32) (uint64, string) {
	return n.x.AckSeq(op), n.x.MidName(n.x.AckID(op))
}
func (n opNames) Asked(op int32) (uint64, int) { return n.x.After(op), n.x.Limit(op) }

// KeyUsed reports whether some persist of the history used key k.
func (x *Index) KeyUsed(k int32) bool {
	lo, hi := Span(x.OpKeySpan, k)
	return hi > lo
}

// RecordsOf is chat c's final idempotency records, grouped once on first
// use (chats are decided concurrently).
func (x *Index) RecordsOf(c int32) []int32 {
	x.recordsOnce.Do(func() {
		x.recordsByChat = map[int32][]int32{}
		for i := range x.Fin.Count() {
			if f := x.Fin.At(i); f.Table == TableIdempotency {
				x.recordsByChat[f.Chat] = append(x.recordsByChat[f.Chat], i)
			}
		}
	})
	return x.recordsByChat[c]
}

// keylessNoOnesOf reports, for chat c's final lines whose key is not
// known, whether a line is no persist's of the history: it names a key
// text (a line without a sender) that no persist of the chat of unknown
// outcome used, and no ok answer of that text is at its sequence. Such a
// line is another writer's, whoever it was, and holds its sequence as one
// (a record without a sender, of a text only a failed persist used, was
// room for a proven commit). A line with no key at all may be any
// persist's: never.
func (x *Index) keylessNoOnesOf(c int32) func(i int32) bool {
	if x.KeylessMsgIn[c] == 0 && x.KeylessIdemIn[c] == 0 {
		return func(int32) bool { return false }
	}
	k := x.keylessOwnersOf(c)
	placed := x.placedSeqs(c, k.ackedSeqs)
	return func(i int32) bool {
		if x.keylessLineIsOther(c, i) {
			// But where a key of the history is placed (keyless_others.go).
			return !placed[x.Fin.At(i).Seq]
		}
		text, texted := x.SenderlessKey[i]
		return texted && !k.open[text] && !k.acked[textSeq{text, x.Fin.At(i).Seq}]
	}
}

// KeylessLinesRelax reports whether chat c has a final line whose key is
// not known, above initial_counter, that a persist of unknown outcome may
// have made (one with no key at all, or without a sender under the text
// of such a persist's key): the model does not tie that persist's commit
// to the line, nor hold the line's sequence against the others' commits,
// so a pass is not exact.
func (x *Index) KeylessLinesRelax(c int32) bool {
	if x.KeylessMsgIn[c] == 0 && x.KeylessIdemIn[c] == 0 {
		return false
	}
	k := x.keylessOwnersOf(c)
	relaxes := func(lines []int32) bool {
		for _, i := range lines {
			f := x.Fin.At(i)
			if f.Key >= 0 || f.Key == FinKeyUnsent {
				continue
			}
			if f.Seq <= x.InitialCounter || x.keylessLineIsOther(c, i) {
				continue // the model places it (preRunContradiction), or another writer's
			}
			if text, texted := x.SenderlessKey[i]; !texted || k.open[text] {
				return true
			}
		}
		return false
	}
	lo, hi := Span(x.MsgSpan, c)
	return relaxes(x.Msgs[lo:hi]) || relaxes(x.RecordsOf(c))
}

type textSeq struct {
	text string
	seq  uint64
}

// keylessOwners is what a chat's persists say of the lines whose key is
// not known: the key texts of its persists of unknown outcome, the (text,
// sequence) of its ok answers, and every ok answer's sequence, keyed or
// not (placedSeqs): one pass over the chat's operations.
type keylessOwners struct {
	open      map[string]bool
	acked     map[textSeq]bool
	ackedSeqs map[uint64]bool
}

func (x *Index) keylessOwnersOf(c int32) keylessOwners {
	k := keylessOwners{open: map[string]bool{}, acked: map[textSeq]bool{}, ackedSeqs: map[uint64]bool{}}
	lo, hi := Span(x.OpChatSpan, c)
	for _, o := range x.OpsByChat[lo:hi] {
		op := x.Ops.At(o)
		if op.Fn != FnPersist {
			continue
		}
		switch op.Status {
		case StOK:
			seq := x.AckSeq(o)
			k.ackedSeqs[seq] = true
			if op.Key >= 0 {
				k.acked[textSeq{x.KeyText(op.Key), seq}] = true
			}
		case StInfo, StOpen:
			if op.Key >= 0 {
				k.open[x.KeyText(op.Key)] = true
			}
		}
	}
	return k
}
