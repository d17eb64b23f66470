package checker

import "github.com/chatseq/chatseq/checker/internal/store"

// NameSequenceMonotonicity is the invariant's name as HISTORY.md spells it.
const NameSequenceMonotonicity = "sequence_monotonicity"

// checkSequenceMonotonicity: the final counter is at least every persisted
// (final messages and idempotency records), every acknowledged, every
// synced and every pushed sequence of its chat.
func checkSequenceMonotonicity(x *index) Result {
	v := newVerdict(NameSequenceMonotonicity)
	if !x.HasCounters {
		v.notApplicable("no final counters lines")
		return v.result()
	}
	// An idempotency record is written with its message: its sequence was
	// a message's, whether or not the message is still there.
	topRecord := map[int32]int32{}
	for i := range x.Fin.Count() {
		if f := x.Fin.At(i); f.Table == store.TableIdempotency {
			if r, ok := topRecord[f.Chat]; !ok || x.Fin.At(r).Seq < f.Seq {
				topRecord[f.Chat] = i
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
	if !x.HasMessages {
		for c := int32(0); c < int32(len(x.ChatNames)); c++ {
			if s, o := x.TopSynced(c); o >= 0 {
				topSynced[c] = synced{s, o}
			}
		}
	}
	topPushed := x.topPushed()
	if len(x.Msgs) == 0 && len(x.Acks) == 0 && len(topRecord) == 0 && len(topSynced) == 0 && len(topPushed) == 0 {
		v.notApplicable("no final messages, idempotency records, acks, synced or pushed messages to compare counters with")
		return v.result()
	}
	u := unjudged{}
	judged := 0
	for c := int32(0); c < int32(len(x.ChatNames)); c++ {
		mlo, mhi := store.Span(x.MsgSpan, c)
		alo, ahi := store.Span(x.AckSpan, c)
		rec, hasRec := topRecord[c]
		top, hasSynced := topSynced[c]
		pushed, hasPushed := topPushed[c]
		if mhi == mlo && ahi == alo && !hasRec && !hasSynced && !hasPushed {
			continue
		}
		fi, why := x.CounterOf(c)
		if fi < 0 {
			u.add(why, c)
			continue
		}
		judged++
		f := x.Fin.At(fi)
		if f.Value() < x.InitialCounter {
			v.fail([]int{int(f.Line)}, "chat %q: final counter %d (line %d) is below initial_counter %d, where it stood before the run", x.ChatNames[f.Chat], f.Value(), f.Line, x.InitialCounter)
		}
		if mhi > mlo {
			if m := x.Fin.At(x.Msgs[mhi-1]); m.Seq > f.Value() {
				v.fail([]int{int(f.Line), int(m.Line)}, "chat %q: final counter %d (line %d) is below the persisted seq %d (line %d)", x.ChatNames[f.Chat], f.Value(), f.Line, m.Seq, m.Line)
			}
		}
		if hasRec {
			if r := x.Fin.At(rec); r.Seq > f.Value() {
				v.fail([]int{int(f.Line), int(r.Line)}, "chat %q: final counter %d (line %d) is below the seq %d of an idempotency record (line %d)", x.ChatNames[f.Chat], f.Value(), f.Line, r.Seq, r.Line)
			}
		}
		if hasSynced && top.seq > f.Value() {
			v.fail([]int{int(f.Line), x.DoneLine(top.op)}, "chat %q: final counter %d (line %d) is below the seq %d a sync returned (line %d)", x.ChatNames[f.Chat], f.Value(), f.Line, top.seq, x.DoneLine(top.op))
		}
		if hasPushed && pushed.Seq > f.Value() {
			v.fail([]int{int(f.Line), int(pushed.Line)}, "chat %q: final counter %d (line %d) is below the seq %d pushed to a device (line %d): a sequence never allocated", x.ChatNames[f.Chat], f.Value(), f.Line, pushed.Seq, pushed.Line)
		}
		if ahi > alo {
			if o := x.Acks[ahi-1]; x.AckSeq(o) > f.Value() {
				v.fail([]int{int(f.Line), x.DoneLine(o)}, "chat %q: final counter %d (line %d) is below the acknowledged seq %d (line %d)", x.ChatNames[f.Chat], f.Value(), f.Line, x.AckSeq(o), x.DoneLine(o))
			}
		}
	}
	if !x.HasMessages {
		v.note("no final messages lines: counters compared with acks only")
	}
	u.report(x, v)
	v.pass("%s: counter ≥ every persisted and acknowledged sequence", plural(judged, "chat"))
	return v.result()
}

// topPushed is, by the Log's chat, the push line of the highest sequence
// pushed to a device: a pushed sequence was a message's too. Without the
// messages table only (with it, identical_order holds each push to the
// table): a push of a sequence above every allocation, in a history
// without the table, passed (a red team's).
func (x *index) topPushed() map[int32]store.Push {
	d := x.Delivery
	if x.HasMessages || d == nil || d.Pushes.Len() == 0 {
		return nil
	}
	top := map[int32]store.Push{}
	d.Pushes.Each(func(p *store.Push) {
		if lc := x.LogChat(d, p.Chat); lc >= 0 {
			if t, ok := top[lc]; !ok || p.Seq > t.Seq {
				top[lc] = *p
			}
		}
	})
	return top
}
