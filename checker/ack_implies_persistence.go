package checker

import (
	"fmt"
	"github.com/chatseq/chatseq/checker/internal/store"
)

// NameAckImpliesPersistence is the invariant's name as HISTORY.md spells it.
const NameAckImpliesPersistence = "ack_implies_persistence"

// checkAckImpliesPersistence: every acknowledged (chat, seq, message_id) is
// in the final messages table — the same message, not merely some message
// at that sequence as ADR-004's text has it, which an overwrite would pass.
func checkAckImpliesPersistence(x *index) Result {
	v := newVerdict(NameAckImpliesPersistence)
	if !x.HasMessages {
		if len(x.Acks) > 0 {
			v.notApplicable("%s but no final messages lines: the history holds no final state to find them in", plural(len(x.Acks), "ack"))
		} else {
			v.notApplicable("no acks and no final messages lines")
		}
		return v.result()
	}
	if len(x.Acks) == 0 {
		v.notApplicable("no acknowledged persists")
		return v.result()
	}
	if len(x.Msgs) == 0 && x.ReadEmpty[store.TableMessages] {
		v.note("the final messages table was read and is empty")
	}
	keyless := 0             // acks whose final message carries no key to compare
	compared, unsent := 0, 0 // acks whose message's content was compared; of which sent without a payload_hash
	// Acks and final messages are both sorted by chat and sequence: one
	// walk along each chat's messages finds them all, where a binary
	// search per ack was a chain of cache misses.
	for c := range int32(len(x.ChatNames)) {
		alo, ahi := store.Span(x.AckSpan, c)
		mlo, mhi := store.Span(x.MsgSpan, c)
		for _, o := range x.Acks[alo:ahi] {
			seq, id := x.AckSeq(o), x.AckID(o)
			for mlo < mhi && x.Fin.At(x.Msgs[mlo]).Seq < seq {
				mlo++
			}
			found, at := false, int32(-1)
			for j := mlo; j < mhi && x.Fin.At(x.Msgs[j]).Seq == seq; j++ {
				if at = x.Msgs[j]; x.Fin.At(at).MessageID == id {
					found = true
					break
				}
			}
			if !found {
				ackNotPersisted(v, x, o, c, seq, id, at)
				continue
			}
			otherKey := false
			switch k, fk := x.Ops.At(o).Key, x.Fin.At(at).Key; {
			case k >= 0 && fk < 0 && x.senderlessOtherKey(at, k):
				ackUnderAnotherKeyText(v, x, o, c, at)
				otherKey = true
			case k < 0 || fk < 0:
				keyless++
			case fk != k:
				ackUnderAnotherKey(v, x, o, c, at)
				otherKey = true
			}
			if !otherKey && !x.IsDedup(o) && x.storedUnderAnotherSender(o, at) {
				ackWithOtherSender(v, x, o, c, at)
			}
			if held, sent := x.FinPayload(at), x.Ops.At(o).Payload; held != 0 && !x.IsDedup(o) {
				if sent == 0 {
					unsent++
				} else if held != sent {
					ackWithOtherContent(v, x, o, c, at)
				}
				compared++
			}
		}
	}
	if compared > 0 {
		v.note("stored content compared with what was sent for %s that created its message (the final line gives its payload_hash)", plural(compared, "ack"))
	}
	if unsent > 0 {
		v.note("%s: the persist sent no payload_hash, so its message's content was not compared", plural(unsent, "ack"))
	}
	if keyless > 0 {
		v.note("%s: the persist or its final message carries no key (or one no single sender used, key_scope client): keys not compared", plural(keyless, "ack"))
	}
	v.pass("%s found in the final messages table with the acknowledged message_id and key", plural(len(x.Acks), "ack"))
	return v.result()
}

// ackUnderAnotherKey fails ack o, whose message the final table holds
// (at) under another key: a retry of the acknowledged key would not find
// it, and would write the message again.
func ackUnderAnotherKey(v *verdict, x *index, o, c, at int32) {
	k, f := x.Ops.At(o).Key, x.Fin.At(at)
	acked, held := quotedApart(x.KeyText(k), x.KeyText(f.Key))
	other := "key " + held
	if x.KeyText(f.Key) == x.KeyText(k) {
		other = fmt.Sprintf("key %s of another sender (key_scope client)", held)
	}
	v.fail([]int{x.DoneLine(o), int(f.Line)}, "chat %q seq %d was acknowledged as %q for key %s (line %d) but the final table holds it under %s (line %d)",
		x.ChatNames[c], x.AckSeq(o), x.MidName(x.AckID(o)), acked, x.DoneLine(o), other, f.Line)
}

// senderlessOtherKey reports whether final line at, one without a sender
// whose key could not be attributed (key_scope client), names another key
// text than key k's: another key whoever sent it.
func (x *index) senderlessOtherKey(at, k int32) bool {
	t, ok := x.SenderlessKey[at]
	return ok && t != x.KeyText(k)
}

// ackUnderAnotherKeyText fails ack o, whose message the final table holds
// (at) on a line without a sender under another key text.
func ackUnderAnotherKeyText(v *verdict, x *index, o, c, at int32) {
	f := x.Fin.At(at)
	acked, held := quotedApart(x.KeyText(x.Ops.At(o).Key), x.SenderlessKey[at])
	v.fail([]int{x.DoneLine(o), int(f.Line)}, "chat %q seq %d was acknowledged as %q for key %s (line %d) but the final table holds it under key %s (line %d, without a sender: another key whoever sent it)",
		x.ChatNames[c], x.AckSeq(o), x.MidName(x.AckID(o)), acked, x.DoneLine(o), held, f.Line)
}

// ackWithOtherContent fails ack o, which created its message: the final
// table holds the message (at) with content that hashes otherwise than
// what the persist sent (a service that stored an altered message passed
// with no device to see it pushed).
func ackWithOtherContent(v *verdict, x *index, o, c, at int32) {
	f := x.Fin.At(at)
	v.fail([]int{int(x.Ops.At(o).InvLine), x.DoneLine(o), int(f.Line)}, "chat %q seq %d was acknowledged as %q (line %d) for the persist invoked at line %d, but the final table holds it with other content than that persist sent (its payload_hash differs, line %d)",
		x.ChatNames[c], x.AckSeq(o), x.MidName(x.AckID(o)), x.DoneLine(o), x.Ops.At(o).InvLine, f.Line)
}

// storedUnderAnotherSender reports whether final line at names a sender
// other than the one persist o sent as (both stated). Under key_scope
// client that is another key, failed as such; under chat the key is the
// same whoever sent it, and a service that stored every message under
// its chat's first member passed (outside walk-through, 2026-12-06).
func (x *index) storedUnderAnotherSender(o, at int32) bool {
	held, sent := x.FinSender(at), x.Ops.At(o).Sender()
	return held != store.NoSender && x.SenderNames[sent] != "" && held != sent
}

// ackWithOtherSender fails ack o, which created its message: the final
// table holds the message (at) under another sender than its persist
// sent as.
func ackWithOtherSender(v *verdict, x *index, o, c, at int32) {
	f := x.Fin.At(at)
	v.fail([]int{int(x.Ops.At(o).InvLine), x.DoneLine(o), int(f.Line)}, "chat %q seq %d was acknowledged as %q (line %d) for the persist invoked at line %d by sender %q, but the final table holds it as sent by %q (line %d): a send's sender is its caller",
		x.ChatNames[c], x.AckSeq(o), x.MidName(x.AckID(o)), x.DoneLine(o), x.Ops.At(o).InvLine, x.SenderNames[x.Ops.At(o).Sender()], x.SenderNames[x.FinSender(at)], f.Line)
}

// ackNotPersisted fails ack o: the final table holds another message at
// its sequence (at), or none (at < 0).
func ackNotPersisted(v *verdict, x *index, o, c int32, seq uint64, id uint32, at int32) {
	if at >= 0 {
		v.fail([]int{x.DoneLine(o), int(x.Fin.At(at).Line)}, "chat %q seq %d was acknowledged as %q (line %d) but the final table holds %q there (line %d)",
			x.ChatNames[c], seq, x.MidName(id), x.DoneLine(o), x.MidName(x.Fin.At(at).MessageID), x.Fin.At(at).Line)
		return
	}
	v.fail([]int{x.DoneLine(o)}, "chat %q seq %d was acknowledged as %q (line %d) but no final message has that sequence",
		x.ChatNames[c], seq, x.MidName(id), x.DoneLine(o))
}
