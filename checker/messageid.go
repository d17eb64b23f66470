package checker

// Message ids are the server's names for messages (ADR-001: assigned on
// persist), so one id never names two sequences of a chat: a service that
// answers a new send with an old message's id, or shows one message at two
// places, breaks sequence_uniqueness as two ids at one sequence do.

// idAtTwoSequences finds, per chat, a message id that acks and final
// messages lines, and, without a final messages table, the sync answers at
// sequences nothing else names, place at two sequences. It reports the
// first one found.
func (x *index) idAtTwoSequences(v *verdict) {
	first := make([]int32, len(x.midNames)) // per id: the line of its first sight, 0 none
	seqOf := make([]uint64, len(x.midNames))
	chatOf := make([]int32, len(x.midNames))
	found := false
	sight := func(c int32, id uint32, seq uint64, line int) {
		switch {
		case found:
		case first[id] == 0:
			first[id], seqOf[id], chatOf[id] = int32(line), seq, c
		case chatOf[id] == c && seqOf[id] != seq:
			found = true
			v.fail([]int{int(first[id]), line}, "chat %q message id %q names two sequences: %d (line %d) and %d (line %d)",
				x.chatNames[c], x.midName(id), seqOf[id], first[id], seq, line)
		}
	}
	for _, o := range x.acks {
		sight(x.ops.at(o).chat, x.ackID(o), x.ackSeq(o), x.doneLine(o))
	}
	for _, i := range x.msgs {
		f := x.fin.at(i)
		sight(f.chat, f.MessageID, f.Seq, int(f.Line))
	}
	if found || x.hasMessages || len(x.syncsByChat) == 0 {
		return
	}
	// What only syncs show, compared by the ids' hashes.
	byHash := map[uint64]uint32{}
	for id := range x.midNames {
		if first[id] != 0 {
			byHash[x.midHash[id]] = uint32(id)
		}
	}
	var buf syncBuf
	for c := int32(0); c < int32(len(x.chatNames)) && !found; c++ {
		lo, hi := span(x.syncSpan, c)
		for _, o := range x.syncsByChat[lo:hi] {
			seqs, ids, ok := x.syncResult(o, &buf)
			if !ok || len(ids) != len(seqs) {
				continue
			}
			for k, h := range ids {
				if id, named := byHash[h]; named {
					sight(c, id, seqs[k], x.doneLine(o))
				}
			}
			if found {
				break
			}
		}
	}
}
