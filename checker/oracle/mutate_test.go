package oracle

import (
	"fmt"
	"math/rand/v2"
)

// mutate breaks (perhaps) one thing in a correct history: the shapes of
// issue 26 and their neighbours. Whether the result is still valid is the
// oracle's to say, never assumed.
func mutate(r *rand.Rand, h *gHist) {
	seqs, mids, keys := h.vocabulary()
	pickSeq := func() uint64 {
		if len(seqs) == 0 || r.IntN(4) == 0 {
			return uint64(r.IntN(int(h.initial) + 5))
		}
		return seqs[r.IntN(len(seqs))]
	}
	pickMid := func() string {
		if len(mids) == 0 || r.IntN(5) == 0 {
			return fmt.Sprintf("mx%d", r.IntN(3))
		}
		return mids[r.IntN(len(mids))]
	}
	pickKey := func() string {
		if len(keys) == 0 || r.IntN(5) == 0 {
			return fmt.Sprintf("kx%d", r.IntN(2))
		}
		return keys[r.IntN(len(keys))]
	}
	pick := func(match func(*gOp) bool) *gOp {
		var idx []int
		for i := range h.ops {
			if match(&h.ops[i]) {
				idx = append(idx, i)
			}
		}
		if len(idx) == 0 {
			return nil
		}
		return &h.ops[idx[r.IntN(len(idx))]]
	}
	okPersist := func(op *gOp) bool { return op.f == "persist" && op.outcome == "ok" }
	okSync := func(op *gOp) bool { return op.f == "sync" && op.outcome == "ok" }
	unsure := func(op *gOp) bool { return op.f == "persist" && (op.outcome == "info" || op.outcome == "") }
	switch r.IntN(20) {
	case 19: // what a sync shows a message carried
		op := pick(func(op *gOp) bool { return okSync(op) && len(op.shown) > 0 })
		if op == nil {
			return
		}
		sh := &op.shown[r.IntN(len(op.shown))]
		switch r.IntN(3) {
		case 0:
			sh.key = pickKey()
		case 1:
			sh.sender = pickSender(r, h)
		default:
			sh.payload = pickPayload(r, h)
		}
	case 16, 17: // a later sync forgets what an earlier one showed
		staleSync(r, h)
	case 18: // a sync shows a message before its first send began
		earlySync(r, h)
	case 0: // an ack's sequence
		if op := pick(okPersist); op != nil {
			op.seq = pickSeq()
		}
	case 1: // an ack's message id
		if op := pick(okPersist); op != nil {
			op.mid = pickMid()
		}
	case 2: // new <-> replay
		if op := pick(okPersist); op != nil {
			op.dedup = !op.dedup
		}
	case 3: // an effect reported as a definite failure (issue 26 case 5)
		if op := pick(func(op *gOp) bool { return okPersist(op) || unsure(op) }); op != nil {
			op.outcome, op.errCode = "fail", "crash_after_allocate"
			if r.IntN(2) == 0 && h.reject {
				op.errCode = "idempotency_key_reused"
			}
		}
	case 4: // an unknown outcome answered
		if op := pick(func(op *gOp) bool { return op.f == "persist" && op.outcome == "info" }); op != nil {
			op.outcome, op.errCode = "ok", ""
			op.seq, op.mid, op.dedup = pickSeq(), pickMid(), r.IntN(2) == 0
		}
	case 5: // a sync's answer: drop, add, swap, change
		op := pick(okSync)
		if op == nil {
			return
		}
		switch n := len(op.seqs); {
		case n > 0 && r.IntN(3) == 0:
			op.removeAt(r.IntN(n))
		case n > 1 && r.IntN(2) == 0:
			op.swapAt(r.IntN(n - 1))
		case n > 0 && r.IntN(2) == 0:
			op.mids[r.IntN(n)] = pickMid()
		default:
			op.insertAt(r.IntN(n+1), pickSeq(), pickMid())
		}
	case 6: // a sync's range, its answer kept
		if op := pick(okSync); op != nil {
			if r.IntN(2) == 0 {
				op.after = pickSeq()
			} else {
				op.limit = uint64(r.IntN(3))
			}
		}
	case 7, 8: // a final message or record: its key, sequence, id, sender; dropped; a phantom
		mutateFinal(r, h, pickSeq, pickMid, pickKey)
	case 9: // a counter
		var idx []int
		for i, f := range h.finals {
			if f.table == "counters" {
				idx = append(idx, i)
			}
		}
		if len(idx) == 0 {
			return
		}
		f := &h.finals[idx[r.IntN(len(idx))]]
		switch r.IntN(4) {
		case 0:
			f.missing = true
		case 1:
			if f.value > 0 {
				f.value--
			}
		case 2:
			f.value++
		default:
			h.finals = append(h.finals[:idx[0]:idx[0]], h.finals[idx[0]+1:]...)
		}
	case 10: // real time: an invoke later or a completion earlier
		op := pick(func(op *gOp) bool { return op.outcome != "" })
		if op == nil {
			return
		}
		lo, hi := h.processWindow(op)
		if r.IntN(2) == 0 {
			op.invoke = lo + r.Int64N(op.complete-lo)
		} else {
			op.complete = op.invoke + 1 + r.Int64N(hi-op.invoke)
		}
	case 11: // the contract under which it is judged
		switch r.IntN(3) {
		case 0:
			h.gapsForbidden = !h.gapsForbidden
		case 1:
			h.reject = !h.reject
		default:
			h.client = !h.client
		}
	case 12: // the header's other promises
		if r.IntN(2) == 0 {
			h.sole = !h.sole
		} else {
			h.initial += uint64(1 + r.IntN(2))
		}
	case 13: // a table read and empty: every line of it lost
		t := []string{"messages", "idempotency", "counters"}[r.IntN(3)]
		if !h.tableRead {
			return
		}
		h.dropLines(t)
		h.read[t] = true
	case 14: // a rejection turned into a plain failure, or back
		if op := pick(func(op *gOp) bool { return op.f == "persist" && op.outcome == "fail" }); op != nil {
			if op.errCode == "idempotency_key_reused" {
				op.errCode = "timeout"
			} else {
				op.errCode = "idempotency_key_reused"
			}
		}
	default: // a replay of a key answering another key's message
		if op := pick(okPersist); op != nil {
			op.key = pickKey()
		}
	}
}

func mutateFinal(r *rand.Rand, h *gHist, pickSeq func() uint64, pickMid, pickKey func() string) {
	var idx []int
	for i, f := range h.finals {
		if f.table != "counters" {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 || r.IntN(4) == 0 {
		// A phantom: a message (and maybe its record) no one sent.
		chat := "c1"
		if len(h.ops) > 0 {
			chat = h.ops[r.IntN(len(h.ops))].chat
		}
		f := gFinal{table: "messages", chat: chat, seq: pickSeq(), mid: pickMid(), key: pickKey()}
		if r.IntN(3) == 0 {
			f.table = "idempotency"
		}
		if h.client && r.IntN(2) == 0 {
			f.sender = []string{"s1", "s2"}[r.IntN(2)]
		}
		h.read[f.table] = true
		h.finals = append(h.finals, f)
		return
	}
	i := idx[r.IntN(len(idx))]
	f := &h.finals[i]
	switch r.IntN(7) {
	case 6:
		if f.table == "messages" {
			f.payload += "-altered" // stored content other than what was sent
		}
	case 0:
		f.key = pickKey() // issue 26 case 6
	case 1:
		f.seq = pickSeq()
	case 2:
		f.mid = pickMid()
	case 3:
		if f.sender == "" {
			f.sender = []string{"s1", "s2"}[r.IntN(2)]
		} else if r.IntN(2) == 0 {
			f.sender = "" // issue 26 case 3: a line without sender
		} else {
			f.sender = map[string]string{"s1": "s2"}[f.sender]
		}
	default:
		h.finals = append(h.finals[:i:i], h.finals[i+1:]...)
	}
}

// vocabulary: the sequences, message ids and keys the history shows, for
// mutations that swap one for another.
func (h *gHist) vocabulary() (seqs []uint64, mids, keys []string) {
	for _, op := range h.ops {
		if op.f == "persist" {
			keys = append(keys, op.key)
			if op.outcome == "ok" {
				seqs, mids = append(seqs, op.seq), append(mids, op.mid)
			}
		} else {
			seqs, mids = append(seqs, op.seqs...), append(mids, op.mids...)
		}
	}
	for _, f := range h.finals {
		if f.table != "counters" {
			seqs, mids, keys = append(seqs, f.seq), append(mids, f.mid), append(keys, f.key)
		}
	}
	return seqs, mids, keys
}

// processWindow: the times op's process leaves free around it (its previous
// operation's completion, its next one's invoke).
func (h *gHist) processWindow(op *gOp) (lo, hi int64) {
	lo, hi = 0, op.complete+5
	for i := range h.ops {
		o := &h.ops[i]
		if o == op || o.process != op.process {
			continue
		}
		if o.outcome != "" && o.complete <= op.invoke && o.complete > lo {
			lo = o.complete
		}
		if o.invoke >= op.complete && o.invoke-1 < hi {
			hi = o.invoke - 1
		}
	}
	if hi <= op.invoke {
		hi = op.invoke + 1
	}
	return lo, hi
}

// staleSync removes from an ok sync a message that an ok sync of its chat,
// completed before it was invoked, returned in its range: only the order of
// the two reads shows the loss.
func staleSync(r *rand.Rand, h *gHist) {
	type pair struct{ later, seq int }
	var cands []pair
	for i := range h.ops {
		b := &h.ops[i]
		if b.f != "sync" || b.outcome != "ok" {
			continue
		}
		for j := range h.ops {
			a := &h.ops[j]
			if a.f != "sync" || a.outcome != "ok" || a.chat != b.chat || a.complete >= b.invoke {
				continue
			}
			for k, seq := range b.seqs {
				for _, s := range a.seqs {
					if s == seq {
						cands = append(cands, pair{i, k})
					}
				}
			}
		}
	}
	if len(cands) == 0 {
		return
	}
	c := cands[r.IntN(len(cands))]
	h.ops[c.later].removeAt(c.seq)
}

// earlySync adds to an ok sync, in order, a message an ack shows (new or a
// replay) whose key's sends all began after the sync completed.
func earlySync(r *rand.Rand, h *gHist) {
	type pair struct{ sync, ack int }
	var cands []pair
	for i := range h.ops {
		s := &h.ops[i]
		if s.f != "sync" || s.outcome != "ok" {
			continue
		}
	acks:
		for j := range h.ops {
			a := &h.ops[j]
			if a.f != "persist" || a.outcome != "ok" || a.chat != s.chat || a.seq <= s.after {
				continue
			}
			for k := range h.ops {
				o := &h.ops[k]
				if o.f == "persist" && o.chat == a.chat && o.key == a.key && o.invoke <= s.complete {
					continue acks
				}
			}
			cands = append(cands, pair{i, j})
		}
	}
	if len(cands) == 0 {
		return
	}
	c := cands[r.IntN(len(cands))]
	s, a := &h.ops[c.sync], &h.ops[c.ack]
	at := 0
	for at < len(s.seqs) && s.seqs[at] < a.seq {
		at++
	}
	if at < len(s.seqs) && s.seqs[at] == a.seq {
		s.mids[at] = a.mid
		return
	}
	s.insertAt(at, a.seq, a.mid)
}

// pickSender is a sender some persist named, or another.
func pickSender(r *rand.Rand, h *gHist) string {
	var senders []string
	for _, op := range h.ops {
		if op.sender != "" {
			senders = append(senders, op.sender)
		}
	}
	if len(senders) == 0 || r.IntN(4) == 0 {
		return fmt.Sprintf("sx%d", r.IntN(2))
	}
	return senders[r.IntN(len(senders))]
}

// pickPayload is a payload_hash some persist sent, or another.
func pickPayload(r *rand.Rand, h *gHist) string {
	var payloads []string
	for _, op := range h.ops {
		if op.payload != "" {
			payloads = append(payloads, op.payload)
		}
	}
	if len(payloads) == 0 || r.IntN(4) == 0 {
		return fmt.Sprintf("px%d", r.IntN(2))
	}
	return payloads[r.IntN(len(payloads))]
}
