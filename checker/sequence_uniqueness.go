package checker

import "github.com/chatseq/chatseq/checker/internal/store"

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
	if len(x.Msgs) == 0 && len(x.Acks) == 0 && (x.HasMessages || len(x.SyncsByChat) == 0) {
		v.notApplicable("no acknowledged persists and no final messages lines")
		return v.result()
	}
	for c := range x.ChatNames {
		lo, hi := store.Span(x.MsgSpan, int32(c))
		ms := x.Msgs[lo:hi]
		for i := 0; i < len(ms); {
			j := i + 1
			for j < len(ms) && x.Fin.At(ms[j]).Seq == x.Fin.At(ms[i]).Seq {
				a, b := x.Fin.At(ms[i]), x.Fin.At(ms[j])
				if a.MessageID != b.MessageID {
					v.fail([]int{int(a.Line), int(b.Line)}, "chat %q seq %d holds two messages in the final table: %q (line %d) and %q (line %d)",
						x.ChatNames[c], a.Seq, x.MidName(a.MessageID), a.Line, x.MidName(b.MessageID), b.Line)
				} else {
					// Equal lines too: (chat, seq) is the table's primary
					// key, one row each, as two records of one key fail
					// idempotency_sequence_consistency.
					v.fail([]int{int(a.Line), int(b.Line)}, "chat %q seq %d is in the final messages table twice (lines %d and %d), though (chat, seq) is its primary key",
						x.ChatNames[c], a.Seq, a.Line, b.Line)
				}
				j++
			}
			i = j
		}
		lo, hi = store.Span(x.AckSpan, int32(c))
		as := x.Acks[lo:hi]
		for i := 0; i < len(as); {
			j := i + 1
			for j < len(as) && x.AckSeq(as[j]) == x.AckSeq(as[i]) {
				if x.AckID(as[j]) != x.AckID(as[i]) {
					v.fail([]int{x.DoneLine(as[i]), x.DoneLine(as[j])}, "chat %q seq %d was acknowledged for two messages: %q (line %d) and %q (line %d)",
						x.ChatNames[c], x.AckSeq(as[i]), x.MidName(x.AckID(as[i])), x.DoneLine(as[i]), x.MidName(x.AckID(as[j])), x.DoneLine(as[j]))
				}
				j++
			}
			i = j
		}
	}
	x.idAtTwoSequences(v)
	v.pass("%s and %s: no sequence holds two message ids, no id two sequences", plural(len(x.Msgs), "final message"), plural(len(x.Acks), "ack"))
	return v.result()
}
