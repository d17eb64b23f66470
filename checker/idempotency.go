package checker

import (
	"fmt"
	"strconv"

	"github.com/chatseq/chatseq/history"
)

// keyOps returns key k's persist operations in invoke order.
func (x *index) keyOps(k int32) []int32 {
	lo, hi := span(x.opKeySpan, k)
	return x.opsByKey[lo:hi]
}

// checkIdempotencyGuarantee: every ok response for one (chat, key), replay
// or not, carries the same sequence and message_id, and at most one final
// message carries the key (ADR-001 Appendix C). A key is scoped as the
// contract's key_scope says: per chat as ADR-004's table is, or per sender
// per chat (ADR-001); the Log numbers keys so (canonicalMaps).
func checkIdempotencyGuarantee(x *index) Result {
	v := newVerdict(NameIdempotencyGuarantee)
	if len(x.acks) == 0 && !x.hasMessages {
		v.notApplicable("no acknowledged persists and no final messages lines")
		return v.result()
	}
	multiSender := 0
	for k := int32(0); k < int32(len(x.keyNames)); k++ {
		first := int32(-1)
		ops := x.keyOps(k)
		for _, o := range ops {
			if x.ops.at(o).sender() != x.ops.at(ops[0]).sender() {
				multiSender++
				break
			}
		}
		for _, o := range ops {
			if x.ops.at(o).status != stOK {
				continue
			}
			if first < 0 {
				first = o
				continue
			}
			if x.ackSeq(o) != x.ackSeq(first) || x.ackID(o) != x.ackID(first) {
				v.fail([]int{x.doneLine(first), x.doneLine(o)}, "chat %q key %q answered seq %d %q (line %d) and seq %d %q (line %d)",
					x.chatNames[x.keyChat[k]], x.keyText(k), x.ackSeq(first), x.midName(x.ackID(first)), x.doneLine(first), x.ackSeq(o), x.midName(x.ackID(o)), x.doneLine(o))
			}
		}
		if m2, ok := x.keyMsg2[k]; ok {
			a, b := x.fin.at(x.keyMsg[k]), x.fin.at(m2)
			if a.Seq != b.Seq || a.MessageID != b.MessageID {
				v.fail([]int{int(a.Line), int(b.Line)}, "chat %q key %q is carried by two final messages: seq %d (line %d) and seq %d (line %d)",
					x.chatNames[a.chat], x.finKeyName(a), a.Seq, a.Line, b.Seq, b.Line)
			}
		}
	}
	if multiSender > 0 {
		x.warn("%d idempotency keys were sent by more than one sender in one chat: keys are scoped per chat (ADR-004), so those senders share one message", multiSender)
	}
	if !x.hasMessages {
		v.pass("%s: every ok response agrees (no final messages lines: 'at most one message per key' not judged)", plural(len(x.keyNames), "key"))
	} else {
		v.pass("%s: every ok response agrees, at most one message each", plural(len(x.keyNames), "key"))
	}
	return v.result()
}

// checkIdempotencySequenceConsistency: the final idempotency record of a key
// and the final message carrying it agree on seq and message_id; one
// without the other is a failure, since ADR-004 writes both in one
// transaction, and so is an idempotency table (read, even empty) without
// the record of a key a persist was acknowledged for, or with one that
// names another message: a replay shows the record existed during the
// run, and records are never deleted (within their TTL). Where a chat's
// final lines carry no key that can be attributed (key_scope client,
// FORMAT.md rule 3), a missing counterpart may be one of them: unknown,
// never a failure claimed on a guess.
func checkIdempotencySequenceConsistency(x *index) Result {
	v := newVerdict(NameIdempotencySeqConsist)
	if !x.hasIdem {
		v.notApplicable("%s", x.lacking(history.TableIdempotency))
		return v.result()
	}
	if !x.hasMessages && len(x.acks) == 0 && len(x.syncsByChat) == 0 && x.keyedRecords() == 0 {
		v.notApplicable("no final messages lines, acks or syncs to compare the idempotency records with")
		return v.result()
	}
	pairs, doubtful := 0, 0
	for k := int32(0); k < int32(len(x.keyNames)); k++ {
		rec, msg := x.keyIdem[k], x.keyMsg[k]
		if r2, ok := x.keyIdem2[k]; ok {
			a, b := x.fin.at(rec), x.fin.at(r2)
			v.fail([]int{int(a.Line), int(b.Line)}, "chat %q key %q has two idempotency records (lines %d and %d)", x.chatNames[a.chat], x.finKeyName(a), a.Line, b.Line)
		}
		switch {
		case rec >= 0 && msg >= 0:
			pairs++
			r, m := x.fin.at(rec), x.fin.at(msg)
			if r.Seq != m.Seq || r.MessageID != m.MessageID {
				v.fail([]int{int(r.Line), int(m.Line)}, "chat %q key %q: idempotency record says seq %d %q (line %d), the message says seq %d %q (line %d)",
					x.chatNames[r.chat], x.finKeyName(r), r.Seq, x.midName(r.MessageID), r.Line, m.Seq, x.midName(m.MessageID), m.Line)
			}
		case rec >= 0 && x.hasMessages:
			r := x.fin.at(rec)
			if x.keylessMsgIn[r.chat] > 0 {
				doubtful++
				continue
			}
			v.fail([]int{int(r.Line)}, "chat %q key %q: idempotency record (line %d) but no message carries the key%s", x.chatNames[r.chat], x.finKeyName(r), r.Line, x.readEmptyNote(tableMessages))
		case msg >= 0:
			m := x.fin.at(msg)
			if x.keylessIdemIn[m.chat] > 0 {
				doubtful++
				continue
			}
			v.fail([]int{int(m.Line)}, "chat %q key %q: message at seq %d (line %d) has no idempotency record%s", x.chatNames[m.chat], x.finKeyName(m), m.Seq, m.Line, x.readEmptyNote(tableIdempotency))
		}
	}
	doubtful += x.acksAgainstRecords(v)
	x.recordsSharingASequence(v)
	x.syncsAgainstRecords(v)
	if x.nKeylessMsg > 0 {
		v.unknown("%s carry no key", plural(x.nKeylessMsg, "final message"))
	}
	if x.nKeylessIdem > 0 {
		v.unknown("%s carry no key that can be attributed (key_scope client: no sender, and no ack or sole writer's single sender names it)", plural(x.nKeylessIdem, "idempotency record"))
	}
	if doubtful > 0 {
		v.unknown("%s without a counterpart in a chat whose final lines without an attributable key may hold it", plural(doubtful, "record, message or ack"))
	}
	v.pass("%s: record and message agree; every acknowledged key has its record", plural(pairs, "key"))
	return v.result()
}

// acksAgainstRecords fails each acknowledged persist whose key has no
// idempotency record, or one naming another sequence or message: the
// ack (a replay too, of a key from before the run as well) shows the
// record existed during the run. It returns how many lack a record in a
// chat with records no key is known for (not judged).
func (x *index) acksAgainstRecords(v *verdict) (doubtful int) {
	for _, o := range x.acks {
		k := x.ops.at(o).key
		if k < 0 {
			continue
		}
		rec := x.keyIdem[k]
		if rec < 0 {
			if x.keylessIdemIn[x.ops.at(o).chat] > 0 {
				doubtful++
				continue
			}
			v.fail(x.opLines(o), "chat %q key %q was acknowledged as seq %d %q (line %d) but the final idempotency table holds no record of the key%s",
				x.chatNames[x.ops.at(o).chat], x.keyText(k), x.ackSeq(o), x.midName(x.ackID(o)), x.doneLine(o), x.readEmptyNote(tableIdempotency))
			continue
		}
		if r := x.fin.at(rec); r.Seq != x.ackSeq(o) || r.MessageID != x.ackID(o) {
			v.fail(append(x.opLines(o), int(r.Line)), "chat %q key %q was acknowledged as seq %d %q (line %d) but its idempotency record says seq %d %q (line %d)",
				x.chatNames[r.chat], x.keyText(k), x.ackSeq(o), x.midName(x.ackID(o)), x.doneLine(o), r.Seq, x.midName(r.MessageID), r.Line)
		}
	}
	return doubtful
}

// recordsSharingASequence fails two idempotency records of other keys (or
// none that can be attributed) at one (chat, seq): one message has one key;
// and two records naming one message id at two sequences of a chat.
func (x *index) recordsSharingASequence(v *verdict) {
	var recs []int32
	for i := range x.fin.count() {
		if x.fin.at(i).Table == tableIdempotency {
			recs = append(recs, i)
		}
	}
	sortByKey(recs, func(i int32) sortKey {
		return sortKey{chat: x.fin.at(i).chat, a: x.fin.at(i).Seq, b: int64(x.fin.at(i).Line)}
	})
	for j := 1; j < len(recs); j++ {
		a, b := x.fin.at(recs[j-1]), x.fin.at(recs[j])
		if a.chat != b.chat || a.Seq != b.Seq || (a.key == b.key && a.key >= 0) {
			continue // one key's two records fail above
		}
		v.fail([]int{int(a.Line), int(b.Line)}, "chat %q seq %d has two idempotency records, of keys %q (line %d) and %q (line %d): one message has one key",
			x.chatNames[a.chat], a.Seq, x.finKeyName(a), a.Line, x.finKeyName(b), b.Line)
	}
	// Nor does one message id name two sequences of a chat.
	sortByKey(recs, func(i int32) sortKey {
		return sortKey{chat: x.fin.at(i).chat, a: uint64(x.fin.at(i).MessageID), b: int64(x.fin.at(i).Line)}
	})
	for j := 1; j < len(recs); j++ {
		a, b := x.fin.at(recs[j-1]), x.fin.at(recs[j])
		if a.chat == b.chat && a.MessageID == b.MessageID && a.Seq != b.Seq {
			v.fail([]int{int(a.Line), int(b.Line)}, "chat %q: the idempotency records at lines %d and %d name message %q at two sequences, %d and %d",
				x.chatNames[a.chat], a.Line, b.Line, x.midName(a.MessageID), a.Seq, b.Seq)
		}
	}
}

// syncsAgainstRecords fails each message a sync returned whose sequence
// holds an idempotency record naming another message id: a record is its
// message's, whoever wrote it. A message a sync alone shows may lack its
// record (records expire: the idempotency table is not the list of
// messages).
func (x *index) syncsAgainstRecords(v *verdict) {
	if x.hasMessages {
		// A sync's answer is checked against the messages table
		// (sync_completeness) and each record against its key's
		// message (idempotency_sequence_consistency): the record at a
		// sequence a sync returned is then the sync's message. Skipped,
		// that saves a map of every record (a fifth of a 2M-persist
		// check's time).
		return
	}
	type chatSeq struct {
		chat int32
		seq  uint64
	}
	recAt := map[chatSeq]int32{}
	for i := range x.fin.count() {
		if f := x.fin.at(i); f.Table == tableIdempotency {
			if _, ok := recAt[chatSeq{f.chat, f.Seq}]; !ok {
				recAt[chatSeq{f.chat, f.Seq}] = i
			}
		}
	}
	if len(recAt) == 0 {
		return
	}
	var buf syncBuf
	for _, o := range x.syncsByChat {
		seqs, ids, ok := x.syncResult(o, &buf)
		if !ok {
			continue
		}
		c := x.ops.at(o).chat
		for j, s := range seqs {
			if r, found := recAt[chatSeq{c, s}]; found && j < len(ids) && x.midHash[x.fin.at(r).MessageID] != ids[j] {
				v.fail(append(x.opLines(o), int(x.fin.at(r).Line)), "chat %q: the sync at line %d returned seq %d as another message than its idempotency record names, %q (line %d)",
					x.chatNames[c], x.doneLine(o), s, x.midName(x.fin.at(r).MessageID), x.fin.at(r).Line)
			}
		}
	}
}

// keyedRecords counts the final idempotency records with a key.
func (x *index) keyedRecords() int {
	n := 0
	for _, r := range x.keyIdem {
		if r >= 0 {
			n++
		}
	}
	return n
}

// readEmptyNote says, for a detail, that table t was read and is empty.
func (x *index) readEmptyNote(t tableKind) string {
	if x.readEmpty[t] {
		return fmt.Sprintf(" (the final %s table was read and is empty)", t)
	}
	return ""
}

// checkKeyReuse (contract key_reuse: reject): a key reused with other
// content is rejected with idempotency_key_reused, and only then. For a
// persist B that ended ok:
//   - if another persist A committed the key (ok, dedup=false) with another
//     payload_hash and was acked before B was invoked, B should have been
//     rejected;
//   - if B is a replay (dedup=true), the key was committed by another
//     persist that could precede it; when every such candidate carries
//     another payload_hash, B should have been rejected.
//
// A rejection R is false when the key never held other content by then:
// its committer has R's payload_hash or was invoked after R completed, or,
// with no known committer, no persist of other content that could have
// committed it was invoked before R completed.
func checkKeyReuse(x *index) Result {
	v := newVerdict(NameKeyReuse)
	if x.ops.len() == 0 {
		v.notApplicable("no operations")
		return v.result()
	}
	noHash, rejections, reuses := 0, 0, 0
	anyHash := false
	for i := range x.ops.count() {
		if x.ops.at(i).fn == fnPersist && x.ops.at(i).payload != 0 {
			anyHash = true
			break
		}
	}
	for k := int32(0); k < int32(len(x.keyNames)); k++ {
		ops := x.keyOps(k)
		if len(ops) < 2 {
			if len(ops) == 1 && x.isRejection(ops[0]) {
				rejections++
				if x.initialCounter > 0 {
					// A key from before the run, perhaps: linearizability
					// judges whether one can be there.
					continue
				}
				o := ops[0]
				v.fail(x.opLines(o), "chat %q key %q was rejected as reused (line %d) but no other persist used the key",
					x.chatNames[x.keyChat[k]], x.keyText(k), x.doneLine(o))
			}
			continue
		}
		hash := func(o int32) uint64 { return x.ops.at(o).payload }
		var committers []int32
		for _, o := range ops {
			if hash(o) == 0 {
				noHash++
			}
			if x.ops.at(o).status == stOK && !x.isDedup(o) {
				committers = append(committers, o)
			}
		}
		for _, b := range ops {
			if hash(b) == 0 {
				continue
			}
			switch {
			case x.ops.at(b).status == stOK && !x.isDedup(b):
				for _, a := range committers {
					if a != b && hash(a) != 0 && hash(a) != hash(b) && x.ret(a) < x.call(b) {
						reuses++
						v.fail(append(x.opLines(a), x.opLines(b)...), "chat %q key %q held other content since line %d, yet the persist at line %d was acked as new at line %d instead of rejected",
							x.chatNames[x.keyChat[k]], x.keyText(k), x.doneLine(a), x.invLine(b), x.doneLine(b))
						break
					}
				}
			case x.isDedup(b) && x.ackSeq(b) <= x.initialCounter:
				// A key from before the run, replayed: its content is the
				// replay's (a rejection of it is judged below).
			case x.isDedup(b):
				cands, other := 0, int32(-1)
				for _, a := range ops {
					if a == b || x.call(a) > x.ret(b) { // equal times are concurrent
						continue
					}
					if st := x.ops.at(a).status; st == stOK && x.isDedup(a) || st == stFail {
						continue
					}
					cands++
					if hash(a) == 0 || hash(a) == hash(b) {
						other = -2 // some candidate had the same content
						break
					}
					if other == -1 {
						other = a
					}
				}
				if cands > 0 && other >= 0 {
					reuses++
					v.fail(append(x.opLines(other), x.opLines(b)...), "chat %q key %q could only have been committed with other content (e.g. line %d), yet the persist at line %d was answered as a replay at line %d instead of rejected",
						x.chatNames[x.keyChat[k]], x.keyText(k), x.invLine(other), x.invLine(b), x.doneLine(b))
				}
			case x.isRejection(b):
				rejections++
				if why, lines := x.falseRejection(b, ops, committers); why != "" {
					v.fail(lines, "chat %q key %q was rejected as reused at line %d but %s", x.chatNames[x.keyChat[k]], x.keyText(k), x.doneLine(b), why)
				}
			}
		}
	}
	switch {
	case noHash > 0 && anyHash:
		v.unknown("%s of reused keys without payload_hash", plural(noHash, "persist"))
	case noHash > 0:
		v.notApplicable("keys are reused but no persist carries a payload_hash: a retry cannot be told from a key reused with other content")
	}
	v.pass("%s and %s of reused keys judged", plural(rejections, "rejection"), plural(reuses, "acceptance"))
	return v.result()
}

func (x *index) isRejection(o int32) bool {
	return x.ops.at(o).status == stFail && x.errNames[x.ops.at(o).err()] == "idempotency_key_reused"
}

// falseRejection explains why rejection r of a key was wrong, or returns "".
func (x *index) falseRejection(r int32, ops, committers []int32) (string, []int) {
	hash := func(o int32) uint64 { return x.ops.at(o).payload }
	if x.initialCounter > 0 && len(committers) == 0 {
		// Perhaps a key from before the run (linearizability judges
		// whether one can be): false only against what its replays at
		// or below the initial counter show it holds.
		for _, a := range ops {
			if x.ops.at(a).status == stOK && x.isDedup(a) && x.ackSeq(a) <= x.initialCounter && hash(a) != 0 && hash(a) == hash(r) {
				return "the key, from before the run, holds the same content (replayed at line " + strconv.Itoa(x.doneLine(a)) + ")", append(x.opLines(a), x.opLines(r)...)
			}
		}
		return "", nil
	}
	if len(committers) > 0 {
		a := committers[0] // a second committer is idempotency_guarantee's failure
		switch {
		case hash(a) == hash(r):
			return "the key holds the same content (committed by line " + strconv.Itoa(x.invLine(a)) + ")", append(x.opLines(a), x.opLines(r)...)
		case x.call(a) > x.ret(r):
			return "the key was first committed by a persist invoked later (line " + strconv.Itoa(x.invLine(a)) + ")", append(x.opLines(a), x.opLines(r)...)
		}
		return "", nil
	}
	onlyRejected := true
	for _, a := range ops {
		st := x.ops.at(a).status
		if a != r && (st == stInfo || st == stOpen) && x.call(a) <= x.ret(r) && hash(a) != hash(r) { // equal times are concurrent
			return "", nil // a may have committed other content first
		}
		onlyRejected = onlyRejected && x.isRejection(a)
	}
	if onlyRejected && x.initialCounter > 0 {
		return "", nil // a key from before the run, perhaps (linearizability judges it)
	}
	return "no persist with other content could have committed the key by then", x.opLines(r)
}
