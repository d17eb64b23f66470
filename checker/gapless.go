package checker

import (
	"math"
	"slices"

	"github.com/chatseq/chatseq/checker/internal/store"
	"github.com/chatseq/chatseq/history"
)

// NameGapless is the invariant's name as HISTORY.md spells it.
const NameGapless = "gapless"

// checkGapless (contract gaps: forbidden): each chat's final messages are
// exactly 1..max, and acked sequences leave no hole that the operations of
// unknown outcome could not fill.
func checkGapless(x *index, reject bool) Result {
	v := newVerdict(NameGapless)
	if !x.HasMessages && len(x.Acks) == 0 && !(x.SoleWriter && (x.HasCounters || x.HasIdem)) {
		v.notApplicable("no final messages lines and no acks")
		return v.result()
	}
	othersHold := false
	topRecord := map[int32]uint64{} // a sole writer's records, by chat (without the messages table)
	topRecordLine := map[int32]int{}
	if x.SoleWriter && !x.HasMessages {
		for i := range x.Fin.Count() {
			if f := x.Fin.At(i); f.Table == store.TableIdempotency && f.Seq >= topRecord[f.Chat] {
				topRecord[f.Chat], topRecordLine[f.Chat] = f.Seq, int(f.Line)
			}
		}
	}
	for c := int32(0); c < int32(len(x.ChatNames)); c++ {
		if x.HasMessages {
			lo, hi := store.Span(x.MsgSpan, c)
			// Sequences up to the initial counter predate the run; past
			// 2^64-1 (full) none is left to place.
			want, full := x.InitialCounter+1, x.InitialCounter == math.MaxUint64
			for k := lo; k < hi; k++ {
				m := x.Fin.At(x.Msgs[k])
				if full || m.Seq < want { // repeated sequence: uniqueness's concern
					continue
				}
				if m.Seq > want {
					lines := []int{int(m.Line)}
					if k > lo {
						lines = append(lines, int(x.Fin.At(x.Msgs[k-1]).Line))
					}
					v.fail(lines, "chat %q: no message at seq %d, below the message at seq %d (line %d)", x.ChatNames[c], want, m.Seq, m.Line)
					break
				}
				want, full = want+1, want == math.MaxUint64
			}
			// Assigned at apply time, the counter is the highest message
			// (or where it stood, with none).
			top := x.InitialCounter
			if hi > lo {
				top = max(top, x.Fin.At(x.Msgs[hi-1]).Seq)
			}
			if fi := x.Counter[c]; fi >= 0 && !x.Fin.At(fi).Missing && (full || want > top) {
				if cv := x.Fin.At(fi).Value(); cv != top {
					v.fail([]int{int(x.Fin.At(fi).Line)}, "chat %q: the counter is %d (line %d), but under gaps: forbidden it is the highest message's sequence, %d", x.ChatNames[c], cv, x.Fin.At(fi).Line, top)
				}
			}
			continue
		}
		// Without the final table, a sole writer's counter: sequences
		// 1..counter hold messages, each a persist's of the history.
		if x.SoleWriter {
			// Each key commits once: count the keys some persist could
			// have created (not a key from before the run).
			keys, preRun := map[int32]bool{}, map[int32]bool{}
			rejected := map[int32][]uint64{} // contents a key's rejections say it does not hold
			// A rejection proves its key's message there when it
			// completed: a send of the key invoked after the first one
			// did not make it (a key from before the run, rejected and
			// then sent with an unknown outcome, was taken to fill the
			// counter: oracle seed 13771105).
			rejectedBy := map[int32]int64{}
			olo, ohi := store.Span(x.OpChatSpan, c)
			for _, o := range x.OpsByChat[olo:ohi] {
				if op := x.Ops.At(o); reject && op.Fn == store.FnPersist && op.Key >= 0 && x.IsRejection(o) {
					if op.Payload != 0 {
						rejected[op.Key] = append(rejected[op.Key], op.Payload)
					}
					if t, seen := rejectedBy[op.Key]; !seen || x.Ret(o) < t {
						rejectedBy[op.Key] = x.Ret(o)
					}
				}
			}
			for _, o := range x.OpsByChat[olo:ohi] {
				op := x.Ops.At(o)
				switch {
				case op.Fn != store.FnPersist || op.Key < 0:
				case op.Status == store.StOK && x.IsDedup(o) && x.AckSeq(o) <= x.InitialCounter,
					// (A sender attributed to a line, not stated on it,
					// proves nothing.)
					!x.Attributed[op.Key] && x.KeyIdem[op.Key] >= 0 && x.Fin.At(x.KeyIdem[op.Key]).Seq <= x.InitialCounter,
					!x.Attributed[op.Key] && x.KeyMsg[op.Key] >= 0 && x.Fin.At(x.KeyMsg[op.Key]).Seq <= x.InitialCounter:
					preRun[op.Key] = true // its message is from before the run
				case op.Status == store.StOK && !x.IsDedup(o),
					op.Status != store.StFail && op.Status != store.StOK && (op.Payload == 0 || !slices.Contains(rejected[op.Key], op.Payload)) && !sentAfterRejection(rejectedBy, op.Key, x.Call(o)):
					// (A send of content its key was rejected for did not
					// make the key's message.)
					keys[op.Key] = true
				}
			}
			for k := range preRun {
				delete(keys, k)
			}
			could := uint64(len(keys))
			// The highest sequence known to hold a message: the counter,
			// a record, an ack or what a sync showed.
			cv, line := topRecord[c], topRecordLine[c]
			if fi := x.Counter[c]; fi >= 0 && !x.Fin.At(fi).Missing && x.Fin.At(fi).Value() > cv {
				cv, line = x.Fin.At(fi).Value(), int(x.Fin.At(fi).Line)
			}
			if alo, ahi := store.Span(x.AckSpan, c); ahi > alo && x.AckSeq(x.Acks[ahi-1]) > cv {
				cv, line = x.AckSeq(x.Acks[ahi-1]), x.DoneLine(x.Acks[ahi-1])
			}
			if s, o := x.TopSynced(c); s > cv {
				cv, line = s, x.DoneLine(o)
			}
			if cv > x.InitialCounter && cv-x.InitialCounter > could {
				v.fail([]int{line}, "chat %q: under gaps: forbidden line %d shows sequence %d, so sequences %d..%d hold messages, but only %d keys of the history could have made one, and the header says sole_writer",
					x.ChatNames[c], line, cv, x.InitialCounter+1, cv, could)
				continue
			}
		}
		// Without the final table: every hole below the highest ack must
		// be filled by a persist of unknown outcome on this chat.
		lo, hi := store.Span(x.AckSpan, c)
		if hi == lo {
			continue
		}
		holes, want, full := uint64(0), x.InitialCounter+1, x.InitialCounter == math.MaxUint64
		firstHole := uint64(0)
		for _, o := range x.Acks[lo:hi] {
			if s := x.AckSeq(o); !full && s >= want {
				if s > want && firstHole == 0 {
					firstHole = want
				}
				holes += s - want
				want, full = s+1, s == math.MaxUint64
			}
		}
		unknownOutcome := uint64(0)
		olo, ohi := store.Span(x.OpChatSpan, c)
		for _, o := range x.OpsByChat[olo:ohi] {
			if st := x.Ops.At(o).Status; x.Ops.At(o).Fn == store.FnPersist && (st == store.StInfo || st == store.StOpen) {
				unknownOutcome++
			}
		}
		if holes > unknownOutcome && !x.SoleWriter {
			// Other writers may hold them: without the table that
			// would show their messages, nothing says otherwise.
			othersHold = true
		} else if holes > unknownOutcome {
			top := x.Acks[hi-1]
			v.fail([]int{x.DoneLine(top)}, "chat %q: %d sequences below the acked %d (line %d) were never acked, the first is %d, and only %d persists of unknown outcome could fill them",
				x.ChatNames[c], holes, x.AckSeq(top), x.DoneLine(top), firstHole, unknownOutcome)
		}
	}
	if x.HasMessages {
		v.pass("every chat's final messages are exactly %d..max", x.InitialCounter+1)
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
	return undefinedValue(history.FieldGaps, j.con.Gaps)
}

func judgeGapless(j *judging) Result {
	return checkGapless(j.x, j.con.KeyReuse == history.KeyReuseReject)
}

// sentAfterRejection reports whether a send of key invoked at call came
// after a rejection of the key had completed (rejectedBy: the first
// completion of each key's rejections).
func sentAfterRejection(rejectedBy map[int32]int64, key int32, call int64) bool {
	t, ok := rejectedBy[key]
	return ok && call > t
}
