package checker

import (
	"fmt"

	"github.com/chatseq/chatseq/history"
)

// NameIdempotencySeqConsist is the invariant's name as HISTORY.md spells it.
const NameIdempotencySeqConsist = "idempotency_sequence_consistency"

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
			a, b := x.fin.At(rec), x.fin.At(r2)
			v.fail([]int{int(a.Line), int(b.Line)}, "chat %q key %q has two idempotency records (lines %d and %d)", x.chatNames[a.chat], x.finKeyName(a), a.Line, b.Line)
		}
		switch {
		case rec >= 0 && msg >= 0:
			pairs++
			r, m := x.fin.At(rec), x.fin.At(msg)
			if r.Seq != m.Seq || r.MessageID != m.MessageID {
				v.fail([]int{int(r.Line), int(m.Line)}, "chat %q key %q: idempotency record says seq %d %q (line %d), the message says seq %d %q (line %d)",
					x.chatNames[r.chat], x.finKeyName(r), r.Seq, x.midName(r.MessageID), r.Line, m.Seq, x.midName(m.MessageID), m.Line)
			}
		case rec >= 0 && x.hasMessages:
			r := x.fin.At(rec)
			if x.keylessMsgIn[r.chat] > 0 {
				doubtful++
				continue
			}
			v.fail([]int{int(r.Line)}, "chat %q key %q: idempotency record (line %d) but no message carries the key%s", x.chatNames[r.chat], x.finKeyName(r), r.Line, x.readEmptyNote(tableMessages))
		case msg >= 0:
			m := x.fin.At(msg)
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
		k := x.ops.At(o).key
		if k < 0 {
			continue
		}
		rec := x.keyIdem[k]
		if rec < 0 {
			if x.keylessIdemIn[x.ops.At(o).chat] > 0 {
				doubtful++
				continue
			}
			v.fail(x.opLines(o), "chat %q key %q was acknowledged as seq %d %q (line %d) but the final idempotency table holds no record of the key%s",
				x.chatNames[x.ops.At(o).chat], x.keyText(k), x.ackSeq(o), x.midName(x.ackID(o)), x.doneLine(o), x.readEmptyNote(tableIdempotency))
			continue
		}
		if r := x.fin.At(rec); r.Seq != x.ackSeq(o) || r.MessageID != x.ackID(o) {
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
	for i := range x.fin.Count() {
		if x.fin.At(i).Table == tableIdempotency {
			recs = append(recs, i)
		}
	}
	sortByKey(recs, func(i int32) sortKey {
		return sortKey{chat: x.fin.At(i).chat, a: x.fin.At(i).Seq, b: int64(x.fin.At(i).Line)}
	})
	for j := 1; j < len(recs); j++ {
		a, b := x.fin.At(recs[j-1]), x.fin.At(recs[j])
		if a.chat != b.chat || a.Seq != b.Seq || (a.key == b.key && a.key >= 0) {
			continue // one key's two records fail above
		}
		v.fail([]int{int(a.Line), int(b.Line)}, "chat %q seq %d has two idempotency records, of keys %q (line %d) and %q (line %d): one message has one key",
			x.chatNames[a.chat], a.Seq, x.finKeyName(a), a.Line, x.finKeyName(b), b.Line)
	}
	// Nor does one message id name two sequences of a chat.
	sortByKey(recs, func(i int32) sortKey {
		return sortKey{chat: x.fin.At(i).chat, a: uint64(x.fin.At(i).MessageID), b: int64(x.fin.At(i).Line)}
	})
	for j := 1; j < len(recs); j++ {
		a, b := x.fin.At(recs[j-1]), x.fin.At(recs[j])
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
	for i := range x.fin.Count() {
		if f := x.fin.At(i); f.Table == tableIdempotency {
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
		c := x.ops.At(o).chat
		for j, s := range seqs {
			if r, found := recAt[chatSeq{c, s}]; found && j < len(ids) && x.midHash[x.fin.At(r).MessageID] != ids[j] {
				v.fail(append(x.opLines(o), int(x.fin.At(r).Line)), "chat %q: the sync at line %d returned seq %d as another message than its idempotency record names, %q (line %d)",
					x.chatNames[c], x.doneLine(o), s, x.midName(x.fin.At(r).MessageID), x.fin.At(r).Line)
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
