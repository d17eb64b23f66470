package checker

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/chatseq/chatseq/history"
)

// Invariants over the final state (counters and messages tables), read
// after the run. The history format has no initial state, so every chat is
// taken to start with its counter at 0 and no messages (ADR-004 §9).

// counterOf returns chat c's final counter line, or why there is none to
// judge by (missing counters are counter_is_last_allocated's failure).
func (x *index) counterOf(c int32) (fi int32, why string) {
	fi = x.counter[c]
	switch {
	case fi < 0 && x.wasRead(tableCounters):
		return -1, "counter missing (the counters table was read and holds no line for it)"
	case fi < 0:
		return -1, "no final counters line"
	case x.fin.at(fi).Missing:
		return -1, "counter missing"
	}
	return fi, ""
}

// active reports whether chat c saw any operation, allocation or message.
func (x *index) active(c int32) bool {
	return x.opChatSpan[c+1] > x.opChatSpan[c] || x.allocSpan[c+1] > x.allocSpan[c] || x.msgSpan[c+1] > x.msgSpan[c]
}

// lacking says which of the final tables the history has no lines of:
// "no final counters or messages lines".
func (x *index) lacking(tables ...string) string {
	var missing []string
	for _, t := range tables {
		has := map[string]bool{
			history.TableCounters: x.hasCounters, history.TableMessages: x.hasMessages,
			history.TableIdempotency: x.hasIdem, history.TableEvents: x.hasEvents,
		}[t]
		if !has {
			missing = append(missing, t)
		}
	}
	return "no final " + strings.Join(missing, " or ") + " lines"
}

// unjudged lists active chats that lack a usable counter, by reason.
type unjudged map[string][]int32

func (u unjudged) add(why string, c int32) { u[why] = append(u[why], c) }

func (u unjudged) report(x *index, v *verdict) {
	for _, why := range slices.Sorted(maps.Keys(u)) {
		v.unknown("%s: %s", why, x.chatList(u[why]))
	}
}

// checkCounterIsLastAllocated: the final counter equals the last traced
// allocation (ADR-004 counter_is_last_allocated); a missing counter is
// ADR-004's counter_must_exist incident, and so is a chat of the history
// without a line in a counters table that was read (table_read).
func checkCounterIsLastAllocated(x *index) Result {
	v := newVerdict(NameCounterIsLastAllocated)
	if !x.hasCounters {
		v.notApplicable("no final counters lines")
		return v.result()
	}
	u := unjudged{}
	judged, present := 0, 0
	var explained uint64
	for c := int32(0); c < int32(len(x.chatNames)); c++ {
		fi := x.counter[c]
		if read, ok := x.read[tableCounters]; fi < 0 && ok {
			// The table's content is known: every chat of the history
			// has its counter, or lost it (ADR-004 counter_must_exist).
			v.fail([]int{read}, "chat %q: counter missing: the counters table was read (line %d) and holds no line for it (ADR-004 counter_must_exist, a SEV-2 correctness incident)", x.chatNames[c], read)
			continue
		}
		if fi < 0 {
			if x.active(c) {
				u.add("no final counters line", c)
			}
			continue
		}
		f := x.fin.at(fi)
		if f.Missing {
			v.fail([]int{int(f.Line)}, "chat %q: counter missing (line %d): ADR-004 counter_must_exist, a SEV-2 correctness incident", x.chatNames[f.chat], f.Line)
			continue
		}
		present++
		if f.value() < x.initialCounter {
			// Whatever was traced: the counter only grows from where it
			// stood before the run.
			v.fail([]int{int(f.Line)}, "chat %q: final counter is %d (line %d), below initial_counter %d, where it stood before the run", x.chatNames[f.chat], f.value(), f.Line, x.initialCounter)
			continue
		}
		if x.allocs.len() == 0 {
			continue
		}
		judged++
		lo, hi := span(x.allocSpan, c)
		last := x.initialCounter
		lines := []int{int(f.Line)}
		if hi > lo {
			a := x.allocBySeq[hi-1]
			last = x.allocSeq(a)
			lines = append(lines, int(x.allocs.at(a).line))
		}
		if f.value() > last && f.value()-last <= x.unknownUntraced[c] {
			// Persists with unknown outcomes may have allocated without
			// the answer coming back: that explains the difference.
			explained += f.value() - last
			continue
		}
		if f.value() != last {
			what := "no allocation was traced"
			if hi > lo {
				what = fmt.Sprintf("the last traced allocation is %d (line %d)", last, lines[1])
			}
			v.fail(lines, "chat %q: final counter is %d (line %d) but %s", x.chatNames[f.chat], f.value(), f.Line, what)
		}
	}
	if x.allocs.len() == 0 {
		v.notApplicable("no allocate traces: the last allocated sequence is not known (%s: the counter exists)", plural(present, "chat"))
	}
	u.report(x, v)
	if explained > 0 {
		v.pass("%s: counter equals the last traced allocation, or exceeds it by %d allocations that operations with unknown outcomes may have made", plural(judged, "chat"), explained)
	} else {
		v.pass("%s: counter equals the last traced allocation", plural(judged, "chat"))
	}
	return v.result()
}

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
	for i := range x.fin.count() {
		if f := x.fin.at(i); f.Table == tableIdempotency {
			if r, ok := topRecord[f.chat]; !ok || x.fin.at(r).Seq < f.Seq {
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
		f := x.fin.at(fi)
		if f.value() < x.initialCounter {
			v.fail([]int{int(f.Line)}, "chat %q: final counter %d (line %d) is below initial_counter %d, where it stood before the run", x.chatNames[f.chat], f.value(), f.Line, x.initialCounter)
		}
		if mhi > mlo {
			if m := x.fin.at(x.msgs[mhi-1]); m.Seq > f.value() {
				v.fail([]int{int(f.Line), int(m.Line)}, "chat %q: final counter %d (line %d) is below the persisted seq %d (line %d)", x.chatNames[f.chat], f.value(), f.Line, m.Seq, m.Line)
			}
		}
		if hasRec {
			if r := x.fin.at(rec); r.Seq > f.value() {
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

// checkCounterLowerBound: a chat holds no more final messages than its
// counter (ADR-004 counter_lower_bound).
func checkCounterLowerBound(x *index) Result {
	v := newVerdict(NameCounterLowerBound)
	if !x.hasCounters || !x.hasMessages {
		v.notApplicable("%s", x.lacking(history.TableCounters, history.TableMessages))
		return v.result()
	}
	u := unjudged{}
	judged := 0
	for c := int32(0); c < int32(len(x.chatNames)); c++ {
		lo, hi := span(x.msgSpan, c)
		if hi == lo {
			continue
		}
		fi, why := x.counterOf(c)
		if fi < 0 {
			u.add(why, c)
			continue
		}
		judged++
		f := x.fin.at(fi)
		ms := x.msgs[lo:hi]
		count := 0 // distinct (seq, message_id): a repeated line is one message
		for i := range ms {
			if i == 0 || x.fin.at(ms[i]).Seq != x.fin.at(ms[i-1]).Seq || x.fin.at(ms[i]).MessageID != x.fin.at(ms[i-1]).MessageID {
				count++
			}
		}
		if uint64(count) > f.value() {
			// The full counterexample is the counter and counter+1
			// messages; beyond 48 lines show the counter and the highest.
			lines := []int{int(f.Line)}
			if f.value()+1 <= 48 {
				for _, m := range ms[:f.value()+1] {
					lines = append(lines, int(x.fin.at(m).Line))
				}
			} else {
				lines = append(lines, int(x.fin.at(ms[len(ms)-1]).Line))
			}
			v.fail(lines, "chat %q: %d final messages but the counter is %d (line %d)", x.chatNames[f.chat], count, f.value(), f.Line)
		}
	}
	u.report(x, v)
	v.pass("%s: message count ≤ counter", plural(judged, "chat"))
	return v.result()
}

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
			for mlo < mhi && x.fin.at(x.msgs[mlo]).Seq < seq {
				mlo++
			}
			found, at := false, int32(-1)
			for j := mlo; j < mhi && x.fin.at(x.msgs[j]).Seq == seq; j++ {
				if at = x.msgs[j]; x.fin.at(at).MessageID == id {
					found = true
					break
				}
			}
			if !found {
				ackNotPersisted(v, x, o, c, seq, id, at)
				continue
			}
			switch k, fk := x.ops.at(o).key, x.fin.at(at).key; {
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
	k, f := x.ops.at(o).key, x.fin.at(at)
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
		v.fail([]int{x.doneLine(o), int(x.fin.at(at).Line)}, "chat %q seq %d was acknowledged as %q (line %d) but the final table holds %q there (line %d)",
			x.chatNames[c], seq, x.midName(id), x.doneLine(o), x.midName(x.fin.at(at).MessageID), x.fin.at(at).Line)
		return
	}
	v.fail([]int{x.doneLine(o)}, "chat %q seq %d was acknowledged as %q (line %d) but no final message has that sequence",
		x.chatNames[c], seq, x.midName(id), x.doneLine(o))
}

// gapStats is what the gap walk learns, for Stats.
type gapStats struct {
	gaps      uint64
	allocated uint64
	causes    map[string]int
}

// checkGaps: every sequence 1..counter without a final message was handed
// out by a traced allocation whose persist did not complete (ADR-004
// gap_is_allocation_without_persistence); gaps are classified by how the
// allocating operation ended.
func checkGaps(x *index) (Result, gapStats) {
	v := newVerdict(NameGapIsAllocation)
	gs := gapStats{causes: map[string]int{}}
	if !x.hasCounters || !x.hasMessages {
		v.notApplicable("%s", x.lacking(history.TableCounters, history.TableMessages))
		return v.result(), gs
	}
	u := unjudged{}
	traced := x.allocs.len() > 0
	untracedChats := 0
	for c := int32(0); c < int32(len(x.chatNames)); c++ {
		fi, why := x.counterOf(c)
		if fi < 0 {
			if x.active(c) {
				u.add(why, c)
			}
			continue
		}
		f := x.fin.at(fi)
		if f.value() > x.initialCounter {
			gs.allocated += f.value() - x.initialCounter
		}
		chatGaps, untraced, firstUntraced := x.walkGaps(c, f.value(), gs.causes)
		gs.gaps += chatGaps
		switch {
		case chatGaps == 0:
		case !traced:
			untracedChats++
		case untraced > 0 && untraced <= x.unknownUntraced[c]:
			// Allocations whose answers were lost (a timeout on step 3).
			gs.causes["unknown_outcome"] += int(untraced)
		case untraced > 0:
			gs.causes["untraced"] += int(min(untraced, 1<<62))
			v.fail([]int{int(f.Line)}, "chat %q: %d sequences ≤ counter %d (line %d) have neither a message nor a traced allocation, the first is %d",
				x.chatNames[f.chat], untraced, f.value(), f.Line, firstUntraced)
		}
	}
	if untracedChats > 0 {
		v.notApplicable("%d gaps in %s but no allocate traces to explain them", gs.gaps, plural(untracedChats, "chat"))
	}
	u.report(x, v)
	v.pass("%s", gapSummary(gs))
	if v.fails > 0 {
		v.note("%s", gapSummary(gs))
	}
	return v.result(), gs
}

// walkGaps merges chat c's message and allocation sequences over 1..counter.
// Sequences are visited in runs, not one by one, so a corrupt counter of
// 10^18 costs no more than a sane one.
func (x *index) walkGaps(c int32, counter uint64, causes map[string]int) (gaps, untraced, firstUntraced uint64) {
	mlo, mhi := span(x.msgSpan, c)
	alo, ahi := span(x.allocSpan, c)
	ms, as := x.msgs[mlo:mhi], x.allocBySeq[alo:ahi]
	i, j := 0, 0
	prev := x.initialCounter // sequences up to it predate the run
	// run counts prev+1..last, sequences neither persisted nor allocated.
	run := func(last uint64) {
		if last > prev {
			gaps += last - prev
			untraced += last - prev
			if firstUntraced == 0 {
				firstUntraced = prev + 1
			}
		}
	}
	for {
		for i < len(ms) && x.fin.at(ms[i]).Seq <= x.initialCounter {
			i++
		}
		for j < len(as) && x.allocSeq(as[j]) <= x.initialCounter {
			j++
		}
		next := uint64(0)
		if i < len(ms) {
			next = x.fin.at(ms[i]).Seq
		}
		if j < len(as) && (next == 0 || x.allocSeq(as[j]) < next) {
			next = x.allocSeq(as[j])
		}
		if next == 0 || next > counter {
			break
		}
		run(next - 1)
		hasMsg := false
		for i < len(ms) && x.fin.at(ms[i]).Seq == next {
			hasMsg = true
			i++
		}
		firstAlloc := int32(-1)
		for j < len(as) && x.allocSeq(as[j]) == next {
			if firstAlloc < 0 {
				firstAlloc = as[j]
			}
			j++
		}
		if !hasMsg {
			gaps++
			causes[x.gapCause(firstAlloc)]++
		}
		prev = next
	}
	run(counter)
	return gaps, untraced, firstUntraced
}

// gapCause names how the operation that allocated a gap ended.
func (x *index) gapCause(a int32) string {
	o := x.allocs.at(a).op
	if o < 0 {
		return "unowned_allocation"
	}
	switch x.ops.at(o).status {
	case stOK:
		if x.isDedup(o) {
			return "raced" // answered with another attempt's sequence
		}
		if x.ackSeq(o) == x.allocSeq(a) {
			return "acked_but_missing"
		}
		return "acked_other_seq"
	case stOpen:
		return "unfinished"
	}
	return x.errCode(o)
}

func gapSummary(gs gapStats) string {
	if gs.gaps == 0 {
		return "no gaps in " + plural(int(gs.allocated), "allocated sequence")
	}
	s := fmt.Sprintf("%d gaps in %d allocated sequences (%.3g%%)", gs.gaps, gs.allocated, 100*float64(gs.gaps)/float64(gs.allocated))
	if len(gs.causes) > 0 {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(gs.causes)) {
			parts = append(parts, fmt.Sprintf("%s %d", k, gs.causes[k]))
		}
		s += ", by cause: " + strings.Join(parts, ", ")
	}
	return s
}

// checkGapless (contract gaps: forbidden): each chat's final messages are
// exactly 1..max, and acked sequences leave no hole that the operations of
// unknown outcome could not fill.
func checkGapless(x *index, reject bool) Result {
	v := newVerdict(NameGapless)
	if !x.hasMessages && len(x.acks) == 0 && !(x.soleWriter && (x.hasCounters || x.hasIdem)) {
		v.notApplicable("no final messages lines and no acks")
		return v.result()
	}
	othersHold := false
	topRecord := map[int32]uint64{} // a sole writer's records, by chat (without the messages table)
	topRecordLine := map[int32]int{}
	if x.soleWriter && !x.hasMessages {
		for i := range x.fin.count() {
			if f := x.fin.at(i); f.Table == tableIdempotency && f.Seq >= topRecord[f.chat] {
				topRecord[f.chat], topRecordLine[f.chat] = f.Seq, int(f.Line)
			}
		}
	}
	for c := int32(0); c < int32(len(x.chatNames)); c++ {
		if x.hasMessages {
			lo, hi := span(x.msgSpan, c)
			// Sequences up to the initial counter predate the run.
			want := x.initialCounter + 1
			for k := lo; k < hi; k++ {
				m := x.fin.at(x.msgs[k])
				if m.Seq < want { // repeated sequence: uniqueness's concern
					continue
				}
				if m.Seq > want {
					lines := []int{int(m.Line)}
					if k > lo {
						lines = append(lines, int(x.fin.at(x.msgs[k-1]).Line))
					}
					v.fail(lines, "chat %q: no message at seq %d, below the message at seq %d (line %d)", x.chatNames[c], want, m.Seq, m.Line)
					break
				}
				want++
			}
			// Assigned at apply time, the counter is the highest message
			// (or where it stood, with none).
			top := x.initialCounter
			if hi > lo {
				top = max(top, x.fin.at(x.msgs[hi-1]).Seq)
			}
			if fi := x.counter[c]; fi >= 0 && !x.fin.at(fi).Missing && want > top {
				if cv := x.fin.at(fi).value(); cv != top {
					v.fail([]int{int(x.fin.at(fi).Line)}, "chat %q: the counter is %d (line %d), but under gaps: forbidden it is the highest message's sequence, %d", x.chatNames[c], cv, x.fin.at(fi).Line, top)
				}
			}
			continue
		}
		// Without the final table, a sole writer's counter: sequences
		// 1..counter hold messages, each a persist's of the history.
		if x.soleWriter {
			// Each key commits once: count the keys some persist could
			// have created (not a key from before the run).
			keys, preRun := map[int32]bool{}, map[int32]bool{}
			rejected := map[int32][]uint64{} // contents a key's rejections say it does not hold
			olo, ohi := span(x.opChatSpan, c)
			for _, o := range x.opsByChat[olo:ohi] {
				if op := x.ops.at(o); reject && op.fn == fnPersist && op.key >= 0 && x.isRejection(o) && op.payload != 0 {
					rejected[op.key] = append(rejected[op.key], op.payload)
				}
			}
			for _, o := range x.opsByChat[olo:ohi] {
				op := x.ops.at(o)
				switch {
				case op.fn != fnPersist || op.key < 0:
				case op.status == stOK && x.isDedup(o) && x.ackSeq(o) <= x.initialCounter,
					// (A sender attributed to a line, not stated on it,
					// proves nothing.)
					!x.attributed[op.key] && x.keyIdem[op.key] >= 0 && x.fin.at(x.keyIdem[op.key]).Seq <= x.initialCounter,
					!x.attributed[op.key] && x.keyMsg[op.key] >= 0 && x.fin.at(x.keyMsg[op.key]).Seq <= x.initialCounter:
					preRun[op.key] = true // its message is from before the run
				case op.status == stOK && !x.isDedup(o),
					op.status != stFail && op.status != stOK && (op.payload == 0 || !slices.Contains(rejected[op.key], op.payload)):
					// (A send of content its key was rejected for did not
					// make the key's message.)
					keys[op.key] = true
				}
			}
			for k := range preRun {
				delete(keys, k)
			}
			could := uint64(len(keys))
			// The highest sequence known to hold a message: the counter,
			// a record, an ack or what a sync showed.
			cv, line := topRecord[c], topRecordLine[c]
			if fi := x.counter[c]; fi >= 0 && !x.fin.at(fi).Missing && x.fin.at(fi).value() > cv {
				cv, line = x.fin.at(fi).value(), int(x.fin.at(fi).Line)
			}
			if alo, ahi := span(x.ackSpan, c); ahi > alo && x.ackSeq(x.acks[ahi-1]) > cv {
				cv, line = x.ackSeq(x.acks[ahi-1]), x.doneLine(x.acks[ahi-1])
			}
			if s, o := x.topSynced(c); s > cv {
				cv, line = s, x.doneLine(o)
			}
			if cv > x.initialCounter && cv-x.initialCounter > could {
				v.fail([]int{line}, "chat %q: under gaps: forbidden line %d shows sequence %d, so sequences %d..%d hold messages, but only %d keys of the history could have made one, and the header says sole_writer",
					x.chatNames[c], line, cv, x.initialCounter+1, cv, could)
				continue
			}
		}
		// Without the final table: every hole below the highest ack must
		// be filled by a persist of unknown outcome on this chat.
		lo, hi := span(x.ackSpan, c)
		if hi == lo {
			continue
		}
		holes, want := uint64(0), x.initialCounter+1
		firstHole := uint64(0)
		for _, o := range x.acks[lo:hi] {
			if s := x.ackSeq(o); s >= want {
				if s > want && firstHole == 0 {
					firstHole = want
				}
				holes += s - want
				want = s + 1
			}
		}
		unknownOutcome := uint64(0)
		olo, ohi := span(x.opChatSpan, c)
		for _, o := range x.opsByChat[olo:ohi] {
			if st := x.ops.at(o).status; x.ops.at(o).fn == fnPersist && (st == stInfo || st == stOpen) {
				unknownOutcome++
			}
		}
		if holes > unknownOutcome && !x.soleWriter {
			// Other writers may hold them: without the table that
			// would show their messages, nothing says otherwise.
			othersHold = true
		} else if holes > unknownOutcome {
			top := x.acks[hi-1]
			v.fail([]int{x.doneLine(top)}, "chat %q: %d sequences below the acked %d (line %d) were never acked, the first is %d, and only %d persists of unknown outcome could fill them",
				x.chatNames[c], holes, x.ackSeq(top), x.doneLine(top), firstHole, unknownOutcome)
		}
	}
	if x.hasMessages {
		v.pass("every chat's final messages are exactly %d..max", x.initialCounter+1)
	} else if othersHold {
		v.pass("acked sequences leave holes that the history's persists of unknown outcome cannot fill; with no final messages lines to show them and no \"sole_writer\" in the header, they are taken as other writers' messages (--sole-writer would fail them)")
	} else {
		v.pass("acked sequences leave no hole that unknown-outcome persists cannot fill (no final messages lines)")
	}
	return v.result()
}

// topSynced is the highest sequence a sync of chat c returned, and that
// sync (0, -1 if none).
func (x *index) topSynced(c int32) (uint64, int32) {
	var top uint64
	at := int32(-1)
	var buf syncBuf
	lo, hi := span(x.syncSpan, c)
	for _, o := range x.syncsByChat[lo:hi] {
		if seqs, ok := x.syncSeqsOf(o, &buf); ok && len(seqs) > 0 && seqs[len(seqs)-1] > top {
			top, at = seqs[len(seqs)-1], o
		}
	}
	return top, at
}
