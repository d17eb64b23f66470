package checker

// NameIdempotencyGuarantee is the invariant's name as HISTORY.md spells it.
const NameIdempotencyGuarantee = "idempotency_guarantee"

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
			if x.ops.At(o).sender() != x.ops.At(ops[0]).sender() {
				multiSender++
				break
			}
		}
		for _, o := range ops {
			if x.ops.At(o).status != stOK {
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
			a, b := x.fin.At(x.keyMsg[k]), x.fin.At(m2)
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
