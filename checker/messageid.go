package checker

import "github.com/chatseq/chatseq/checker/internal/store"

// Message ids are the server's names for messages (ADR-001: assigned on
// persist), so one id never names two sequences of a chat: a service that
// answers a new send with an old message's id, or shows one message at two
// places, breaks sequence_uniqueness as two ids at one sequence do.

// idAtTwoSequences finds, chat by chat, a message id that acks and final
// messages lines, and, without a final messages table, the sync answers at
// sequences nothing else names, place at two sequences. It reports the
// first one found. Other chats never count: ids are compared within one.
func (x *index) idAtTwoSequences(v *verdict) {
	first := make([]int32, len(x.MidNames)) // per id: the line of its first sight in this chat, 0 none
	seqOf := make([]uint64, len(x.MidNames))
	var touched []uint32
	found := false
	sight := func(c int32, id uint32, seq uint64, line int) {
		switch {
		case found:
		case first[id] == 0:
			first[id], seqOf[id] = int32(line), seq
			touched = append(touched, id)
		case seqOf[id] != seq:
			found = true
			v.fail([]int{int(first[id]), line}, "chat %q message id %q names two sequences: %d (line %d) and %d (line %d)",
				x.ChatNames[c], x.MidName(id), seqOf[id], first[id], seq, line)
		}
	}
	// Without the final table, sync answers too: ids by hash, with the
	// sequence and line of their first sight.
	type seen struct {
		seq  uint64
		line int
	}
	var byHash map[uint64]seen
	var buf store.SyncBuf
	for c := int32(0); c < int32(len(x.ChatNames)) && !found; c++ {
		lo, hi := store.Span(x.AckSpan, c)
		for _, o := range x.Acks[lo:hi] {
			sight(c, x.AckID(o), x.AckSeq(o), x.DoneLine(o))
		}
		lo, hi = store.Span(x.MsgSpan, c)
		for _, i := range x.Msgs[lo:hi] {
			f := x.Fin.At(i)
			sight(c, f.MessageID, f.Seq, int(f.Line))
		}
		if !x.HasMessages {
			// A record names its message (with the messages table,
			// idempotency_sequence_consistency compares the two).
			for _, i := range x.RecordsOf(c) {
				f := x.Fin.At(i)
				sight(c, f.MessageID, f.Seq, int(f.Line))
			}
		}
		if lo, hi := store.Span(x.SyncSpan, c); !x.HasMessages && hi > lo && !found {
			clear(byHash)
			if byHash == nil {
				byHash = map[uint64]seen{}
			}
			for _, id := range touched {
				byHash[x.MidHash[id]] = seen{seqOf[id], int(first[id])}
			}
			for _, o := range x.SyncsByChat[lo:hi] {
				seqs, ids, ok := x.SyncResult(o, &buf)
				if !ok || len(ids) != len(seqs) {
					continue
				}
				for k, h := range ids {
					at, named := byHash[h]
					switch {
					case !named:
						byHash[h] = seen{seqs[k], x.DoneLine(o)}
					case at.seq != seqs[k]:
						found = true
						v.fail([]int{at.line, x.DoneLine(o)}, "chat %q: one message id names two sequences: %d (line %d) and %d (line %d)",
							x.ChatNames[c], at.seq, at.line, seqs[k], x.DoneLine(o))
					}
					if found {
						break
					}
				}
				if found {
					break
				}
			}
		}
		for _, id := range touched {
			first[id] = 0
		}
		touched = touched[:0]
	}
}
