package checker

import (
	"slices"

	"github.com/chatseq/chatseq/history"
)

// NameGapless is the invariant's name as HISTORY.md spells it.
const NameGapless = "gapless"

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
		for i := range x.fin.Count() {
			if f := x.fin.At(i); f.Table == tableIdempotency && f.Seq >= topRecord[f.chat] {
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
				m := x.fin.At(x.msgs[k])
				if m.Seq < want { // repeated sequence: uniqueness's concern
					continue
				}
				if m.Seq > want {
					lines := []int{int(m.Line)}
					if k > lo {
						lines = append(lines, int(x.fin.At(x.msgs[k-1]).Line))
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
				top = max(top, x.fin.At(x.msgs[hi-1]).Seq)
			}
			if fi := x.counter[c]; fi >= 0 && !x.fin.At(fi).Missing && want > top {
				if cv := x.fin.At(fi).value(); cv != top {
					v.fail([]int{int(x.fin.At(fi).Line)}, "chat %q: the counter is %d (line %d), but under gaps: forbidden it is the highest message's sequence, %d", x.chatNames[c], cv, x.fin.At(fi).Line, top)
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
				if op := x.ops.At(o); reject && op.fn == fnPersist && op.key >= 0 && x.isRejection(o) && op.payload != 0 {
					rejected[op.key] = append(rejected[op.key], op.payload)
				}
			}
			for _, o := range x.opsByChat[olo:ohi] {
				op := x.ops.At(o)
				switch {
				case op.fn != fnPersist || op.key < 0:
				case op.status == stOK && x.isDedup(o) && x.ackSeq(o) <= x.initialCounter,
					// (A sender attributed to a line, not stated on it,
					// proves nothing.)
					!x.attributed[op.key] && x.keyIdem[op.key] >= 0 && x.fin.At(x.keyIdem[op.key]).Seq <= x.initialCounter,
					!x.attributed[op.key] && x.keyMsg[op.key] >= 0 && x.fin.At(x.keyMsg[op.key]).Seq <= x.initialCounter:
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
			if fi := x.counter[c]; fi >= 0 && !x.fin.At(fi).Missing && x.fin.At(fi).value() > cv {
				cv, line = x.fin.At(fi).value(), int(x.fin.At(fi).Line)
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
			if st := x.ops.At(o).status; x.ops.At(o).fn == fnPersist && (st == stInfo || st == stOpen) {
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

// gaplessPromise: gaps: forbidden promises gapless sequences.
func gaplessPromise(j *judging) promise {
	switch j.con.Gaps {
	case history.GapsForbidden:
		return promise{}
	case history.GapsAllowed:
		// Worded for any design: the header may be another system's.
		return notPromised("contract gaps: allowed (the design may skip sequences; gap_is_allocation_without_persistence accounts for each gap)")
	}
	return undefinedValue("gaps", j.con.Gaps)
}

func judgeGapless(j *judging) Result {
	return checkGapless(j.x, j.con.KeyReuse == history.KeyReuseReject)
}
