package checker

import (
	"fmt"
)

// NameAckImpliesPersistence is the invariant's name as HISTORY.md spells it.
const NameAckImpliesPersistence = "ack_implies_persistence"

// checkAckImpliesPersistence: every acknowledged (chat, seq, message_id) is
// in the final messages table — the same message, not merely some message
// at that sequence as ADR-004's text has it, which an overwrite would pass.
func checkAckImpliesPersistence(x *index) Result {
	v := newVerdict(NameAckImpliesPersistence)
	if !x.hasMessages {
		if len(x.acks) > 0 {
			v.notApplicable("%s but no final messages lines: the history holds no final state to find them in", plural(len(x.acks), "ack"))
		} else {
			v.notApplicable("no acks and no final messages lines")
		}
		return v.result()
	}
	if len(x.acks) == 0 {
		v.notApplicable("no acknowledged persists")
		return v.result()
	}
	if len(x.msgs) == 0 && x.readEmpty[tableMessages] {
		v.note("the final messages table was read and is empty")
	}
	keyless := 0 // acks whose final message carries no key to compare
	// Acks and final messages are both sorted by chat and sequence: one
	// walk along each chat's messages finds them all, where a binary
	// search per ack was a chain of cache misses.
	for c := range int32(len(x.chatNames)) {
		alo, ahi := span(x.ackSpan, c)
		mlo, mhi := span(x.msgSpan, c)
		for _, o := range x.acks[alo:ahi] {
			seq, id := x.ackSeq(o), x.ackID(o)
			for mlo < mhi && x.fin.At(x.msgs[mlo]).Seq < seq {
				mlo++
			}
			found, at := false, int32(-1)
			for j := mlo; j < mhi && x.fin.At(x.msgs[j]).Seq == seq; j++ {
				if at = x.msgs[j]; x.fin.At(at).MessageID == id {
					found = true
					break
				}
			}
			if !found {
				ackNotPersisted(v, x, o, c, seq, id, at)
				continue
			}
			switch k, fk := x.ops.At(o).key, x.fin.At(at).key; {
			case k < 0 || fk < 0:
				keyless++
			case fk != k:
				ackUnderAnotherKey(v, x, o, c, at)
			}
		}
	}
	if keyless > 0 {
		v.note("%s: the persist or its final message carries no key (or one no single sender used, key_scope client): keys not compared", plural(keyless, "ack"))
	}
	v.pass("%s found in the final messages table with the acknowledged message_id and key", plural(len(x.acks), "ack"))
	return v.result()
}

// ackUnderAnotherKey fails ack o, whose message the final table holds
// (at) under another key: a retry of the acknowledged key would not find
// it, and would write the message again.
func ackUnderAnotherKey(v *verdict, x *index, o, c, at int32) {
	k, f := x.ops.At(o).key, x.fin.At(at)
	other := fmt.Sprintf("key %q", x.keyText(f.key))
	if x.keyText(f.key) == x.keyText(k) {
		other = fmt.Sprintf("key %q of another sender (key_scope client)", x.keyText(f.key))
	}
	v.fail([]int{x.doneLine(o), int(f.Line)}, "chat %q seq %d was acknowledged as %q for key %q (line %d) but the final table holds it under %s (line %d)",
		x.chatNames[c], x.ackSeq(o), x.midName(x.ackID(o)), x.keyText(k), x.doneLine(o), other, f.Line)
}

// ackNotPersisted fails ack o: the final table holds another message at
// its sequence (at), or none (at < 0).
func ackNotPersisted(v *verdict, x *index, o, c int32, seq uint64, id uint32, at int32) {
	if at >= 0 {
		v.fail([]int{x.doneLine(o), int(x.fin.At(at).Line)}, "chat %q seq %d was acknowledged as %q (line %d) but the final table holds %q there (line %d)",
			x.chatNames[c], seq, x.midName(id), x.doneLine(o), x.midName(x.fin.At(at).MessageID), x.fin.At(at).Line)
		return
	}
	v.fail([]int{x.doneLine(o)}, "chat %q seq %d was acknowledged as %q (line %d) but no final message has that sequence",
		x.chatNames[c], seq, x.midName(id), x.doneLine(o))
}
