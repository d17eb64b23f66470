package checker

// NameSequenceUniqueness is the invariant's name as HISTORY.md spells it.
const NameSequenceUniqueness = "sequence_uniqueness"

// checkSequenceUniqueness: no two messages share (chat, seq), judged over
// the final messages lines (a user-written file may repeat a primary key,
// even with an equal line) and over acknowledged persists. DynamoDB's (chat_id,
// sequence) primary key makes the table side structurally true for an
// unconditional Put — a second message at a sequence overwrites the first
// — so the acks are where a collision is actually visible; an ack whose
// message was overwritten is ack_implies_persistence's failure.
func checkSequenceUniqueness(x *index) Result {
	v := newVerdict(NameSequenceUniqueness)
	if len(x.msgs) == 0 && len(x.acks) == 0 && (x.hasMessages || len(x.syncsByChat) == 0) {
		v.notApplicable("no acknowledged persists and no final messages lines")
		return v.result()
	}
	for c := range x.chatNames {
		lo, hi := span(x.msgSpan, int32(c))
		ms := x.msgs[lo:hi]
		for i := 0; i < len(ms); {
			j := i + 1
			for j < len(ms) && x.fin.At(ms[j]).Seq == x.fin.At(ms[i]).Seq {
				a, b := x.fin.At(ms[i]), x.fin.At(ms[j])
				if a.MessageID != b.MessageID {
					v.fail([]int{int(a.Line), int(b.Line)}, "chat %q seq %d holds two messages in the final table: %q (line %d) and %q (line %d)",
						x.chatNames[c], a.Seq, x.midName(a.MessageID), a.Line, x.midName(b.MessageID), b.Line)
				} else {
					// Equal lines too: (chat, seq) is the table's primary
					// key, one row each, as two records of one key fail
					// idempotency_sequence_consistency.
					v.fail([]int{int(a.Line), int(b.Line)}, "chat %q seq %d is in the final messages table twice (lines %d and %d), though (chat, seq) is its primary key",
						x.chatNames[c], a.Seq, a.Line, b.Line)
				}
				j++
			}
			i = j
		}
		lo, hi = span(x.ackSpan, int32(c))
		as := x.acks[lo:hi]
		for i := 0; i < len(as); {
			j := i + 1
			for j < len(as) && x.ackSeq(as[j]) == x.ackSeq(as[i]) {
				if x.ackID(as[j]) != x.ackID(as[i]) {
					v.fail([]int{x.doneLine(as[i]), x.doneLine(as[j])}, "chat %q seq %d was acknowledged for two messages: %q (line %d) and %q (line %d)",
						x.chatNames[c], x.ackSeq(as[i]), x.midName(x.ackID(as[i])), x.doneLine(as[i]), x.midName(x.ackID(as[j])), x.doneLine(as[j]))
				}
				j++
			}
			i = j
		}
	}
	x.idAtTwoSequences(v)
	v.pass("%s and %s: no sequence holds two message ids, no id two sequences", plural(len(x.msgs), "final message"), plural(len(x.acks), "ack"))
	return v.result()
}
