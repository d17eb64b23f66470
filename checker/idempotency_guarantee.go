package checker

import (
	"fmt"

	"github.com/chatseq/chatseq/checker/internal/store"
	"github.com/chatseq/chatseq/history"
)

// NameIdempotencyGuarantee is the invariant's name as HISTORY.md spells it.
const NameIdempotencyGuarantee = "idempotency_guarantee"

// checkIdempotencyGuarantee: every ok response for one (chat, key), replay
// or not, carries the same sequence and message_id, and at most one final
// message carries the key (ADR-001 Appendix C). A key is scoped as the
// contract's key_scope says: per chat as ADR-004's table is, or per sender
// per chat (ADR-001); the Log numbers keys so (store.Log.CanonicalMaps).
//
// Under key_reuse return-original a held key is answered with its
// original message, so a refusal of it as reused (idempotency_key_reused)
// once it was known held fails too (refusedWhenHeld).
func checkIdempotencyGuarantee(x *index, returnOriginal bool) Result {
	v := newVerdict(NameIdempotencyGuarantee)
	refused := 0
	if returnOriginal {
		refused = x.refusedWhenHeld(v)
	}
	shown := x.syncKeysHoldOneMessage(v)
	if len(x.Acks) == 0 && !x.HasMessages && refused == 0 && shown == 0 {
		v.notApplicable("no acknowledged persists and no final messages lines")
		return v.result()
	}
	for k := int32(0); k < int32(len(x.KeyNames)); k++ {
		first := int32(-1)
		ops := x.KeyOps(k)
		for _, o := range ops {
			if x.Ops.At(o).Status != store.StOK {
				continue
			}
			if first < 0 {
				first = o
				continue
			}
			if x.AckSeq(o) != x.AckSeq(first) || x.AckID(o) != x.AckID(first) {
				v.fail([]int{x.DoneLine(first), x.DoneLine(o)}, "chat %q key %q answered seq %d %q (line %d) and seq %d %q (line %d)%s",
					x.ChatNames[x.KeyChat[k]], x.KeyText(k), x.AckSeq(first), x.MidName(x.AckID(first)), x.DoneLine(first), x.AckSeq(o), x.MidName(x.AckID(o)), x.DoneLine(o),
					x.twoSendersOfOneKey(x.Ops.At(first).Sender(), x.Ops.At(o).Sender()))
			}
		}
		if m2, ok := x.KeyMsg2[k]; ok {
			a, b := x.Fin.At(x.KeyMsg[k]), x.Fin.At(m2)
			if a.Seq != b.Seq || a.MessageID != b.MessageID {
				v.fail([]int{int(a.Line), int(b.Line)}, "chat %q key %q is carried by two final messages: seq %d (line %d) and seq %d (line %d)%s",
					x.ChatNames[a.Chat], x.FinKeyName(a), a.Seq, a.Line, b.Seq, b.Line,
					x.twoSendersOfOneKey(x.FinSender(x.KeyMsg[k]), x.FinSender(m2)))
			}
		}
	}
	if !x.HasMessages {
		v.pass("%s: every ok response agrees (no final messages lines: 'at most one message per key' not judged)", plural(len(x.KeyNames), "key"))
	} else {
		v.pass("%s: every ok response agrees, at most one message each", plural(len(x.KeyNames), "key"))
	}
	return v.result()
}

// twoSendersOfOneKey explains a key's two messages or answers that two
// senders' sends made, where both are named: the contract's key scope says
// they share one (only key_scope chat puts two senders' sends in one key).
// A service that keys by sender is driven under the wrong contract, or
// breaks ADR-004's. "" otherwise.
func (x *index) twoSendersOfOneKey(a, b uint32) string {
	if a == store.NoSender || b == store.NoSender {
		return ""
	}
	return twoSendersText(x.SenderNames[a], x.SenderNames[b])
}

// twoSendersText is twoSendersOfOneKey's words for two senders' names.
func twoSendersText(a, b string) string {
	if a == b || a == "" || b == "" {
		return ""
	}
	return fmt.Sprintf(" (sent by %q and %q: under key_scope chat, as ADR-004 keys its table, two senders' sends of one key are one message; a service that keys by sender as well breaks that, or states key_scope client)", a, b)
}

func judgeIdempotencyGuarantee(j *judging) Result {
	return checkIdempotencyGuarantee(j.x, j.con.KeyReuse != history.KeyReuseReject)
}
