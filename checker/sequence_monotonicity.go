package checker

// NameSequenceMonotonicity is the invariant's name as HISTORY.md spells it.
const NameSequenceMonotonicity = "sequence_monotonicity"

// checkSequenceMonotonicity: the final counter is at least every persisted
// (final messages and idempotency records), every acknowledged and every
// synced sequence of its chat.
func checkSequenceMonotonicity(x *index) Result {
	v := newVerdict(NameSequenceMonotonicity)
	if !x.hasCounters {
		v.notApplicable("no final counters lines")
		return v.result()
	}
	// An idempotency record is written with its message: its sequence was
	// a message's, whether or not the message is still there.
	topRecord := map[int32]int32{}
	for i := range x.fin.Count() {
		if f := x.fin.At(i); f.Table == tableIdempotency {
			if r, ok := topRecord[f.chat]; !ok || x.fin.At(r).Seq < f.Seq {
				topRecord[f.chat] = i
			}
		}
	}
	// A sequence a sync returned was a message's too: without the
	// messages table (with it, sync_completeness holds each to the table,
	// and decoding every answer again cost a tenth of a 2M-persist check).
	type synced struct {
		seq uint64
		op  int32 // the sync that returned it
	}
	topSynced := map[int32]synced{}
	if !x.hasMessages {
		for c := int32(0); c < int32(len(x.chatNames)); c++ {
			if s, o := x.topSynced(c); o >= 0 {
				topSynced[c] = synced{s, o}
			}
		}
	}
	if len(x.msgs) == 0 && len(x.acks) == 0 && len(topRecord) == 0 && len(topSynced) == 0 {
		v.notApplicable("no final messages, idempotency records, acks or synced messages to compare counters with")
		return v.result()
	}
	u := unjudged{}
	judged := 0
	for c := int32(0); c < int32(len(x.chatNames)); c++ {
		mlo, mhi := span(x.msgSpan, c)
		alo, ahi := span(x.ackSpan, c)
		rec, hasRec := topRecord[c]
		top, hasSynced := topSynced[c]
		if mhi == mlo && ahi == alo && !hasRec && !hasSynced {
			continue
		}
		fi, why := x.counterOf(c)
		if fi < 0 {
			u.add(why, c)
			continue
		}
		judged++
		f := x.fin.At(fi)
		if f.value() < x.initialCounter {
			v.fail([]int{int(f.Line)}, "chat %q: final counter %d (line %d) is below initial_counter %d, where it stood before the run", x.chatNames[f.chat], f.value(), f.Line, x.initialCounter)
		}
		if mhi > mlo {
			if m := x.fin.At(x.msgs[mhi-1]); m.Seq > f.value() {
				v.fail([]int{int(f.Line), int(m.Line)}, "chat %q: final counter %d (line %d) is below the persisted seq %d (line %d)", x.chatNames[f.chat], f.value(), f.Line, m.Seq, m.Line)
			}
		}
		if hasRec {
			if r := x.fin.At(rec); r.Seq > f.value() {
				v.fail([]int{int(f.Line), int(r.Line)}, "chat %q: final counter %d (line %d) is below the seq %d of an idempotency record (line %d)", x.chatNames[f.chat], f.value(), f.Line, r.Seq, r.Line)
			}
		}
		if hasSynced && top.seq > f.value() {
			v.fail([]int{int(f.Line), x.doneLine(top.op)}, "chat %q: final counter %d (line %d) is below the seq %d a sync returned (line %d)", x.chatNames[f.chat], f.value(), f.Line, top.seq, x.doneLine(top.op))
		}
		if ahi > alo {
			if o := x.acks[ahi-1]; x.ackSeq(o) > f.value() {
				v.fail([]int{int(f.Line), x.doneLine(o)}, "chat %q: final counter %d (line %d) is below the acknowledged seq %d (line %d)", x.chatNames[f.chat], f.value(), f.Line, x.ackSeq(o), x.doneLine(o))
			}
		}
	}
	if !x.hasMessages {
		v.note("no final messages lines: counters compared with acks only")
	}
	u.report(x, v)
	v.pass("%s: counter ≥ every persisted and acknowledged sequence", plural(judged, "chat"))
	return v.result()
}
