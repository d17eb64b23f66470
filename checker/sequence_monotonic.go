package checker

import (
	"fmt"

	"github.com/chatseq/chatseq/checker/internal/store"
)

// NameSequenceMonotonic is the invariant's name as HISTORY.md spells it.
const NameSequenceMonotonic = "sequence_monotonic"

// checkSequenceMonotonic: of two persists that each created their message,
// the one acknowledged before the other was invoked has the smaller
// sequence (ADR-001 Appendix C in HISTORY.md's real-time form). A persist
// acked with dedup=false created its message; a message a final line or
// a replay places was created by one of its key's persists that can have
// made it (created, below), no earlier than the first of them was invoked.
func checkSequenceMonotonic(x *index) Result {
	v := newVerdict(NameSequenceMonotonic)
	buf := make([]store.Interval, 0, store.MaxSpan(x.AckSpan))
	total, placed := 0, 0
	made := created(x)
	for c := range x.ChatNames {
		lo, hi := store.Span(x.AckSpan, int32(c))
		buf = buf[:0]
		for _, o := range x.Acks[lo:hi] {
			if !x.IsDedup(o) {
				buf = append(buf, store.Interval{Start: x.Call(o), End: x.Ret(o), Value: x.AckSeq(o), Ref: o})
			}
		}
		total += len(buf)
		// Acks are by sequence: the first new message is the lowest. A
		// replay may answer a message from before the run; a new one
		// is above where the counter stood.
		if len(buf) > 0 && buf[0].Value <= x.InitialCounter && x.InitialCounter > 0 {
			o := buf[0].Ref
			v.fail([]int{x.DoneLine(o)}, "chat %q: a persist was acked seq %d as a new message (line %d), not above initial_counter %d, where the counter stood before the run",
				x.ChatNames[c], x.AckSeq(o), x.DoneLine(o), x.InitialCounter)
		}
		for i, m := range made[int32(c)] {
			// Made no earlier than its key's first persist that can have
			// made it, and at any time after: never the earlier side.
			buf = append(buf, store.Interval{Start: x.Call(m.first), End: store.TimeMax, Value: m.seq, Ref: -int32(i) - 1})
			placed++
		}
		n, first := store.FindOrderViolations(buf, store.EqualViolatesIfOrdered)
		if n == 0 {
			continue
		}
		h, l := first.Hi, first.Lo
		if l.Ref < 0 {
			m := made[int32(c)][-l.Ref-1]
			v.fail([]int{x.DoneLine(h.Ref), x.InvLine(m.first), int(m.line)},
				"chat %q: seq %d was acked as a new message at line %d before the persist at line %d was invoked, yet %s puts that persist's key's message (made by it or a later persist of the key, none acked as new before) at seq %d",
				x.ChatNames[c], h.Value, x.DoneLine(h.Ref), x.InvLine(m.first), m.proof(), m.seq)
			continue
		}
		v.fail([]int{x.DoneLine(h.Ref), x.InvLine(l.Ref), x.DoneLine(l.Ref)},
			"chat %q: %d new messages were acked a sequence not above one acked before they were invoked, e.g. seq %d acked at line %d before the persist at line %d was invoked, which got seq %d",
			x.ChatNames[c], n, h.Value, x.DoneLine(h.Ref), x.InvLine(l.Ref), l.Value)
	}
	if total == 0 && placed == 0 {
		v.notApplicable("no persist was acknowledged as a new message (ok with dedup=false), and no final line or replay places a message only persists of unknown outcome can have made")
	}
	if placed == 0 {
		v.pass("%s acked as new messages: their sequences increase in real time", plural(total, "persist"))
	} else {
		v.pass("%s acked as new messages, and %s only persists of unknown outcome can have made: their sequences increase in real time", plural(total, "persist"), plural(placed, "placed message"))
	}
	return v.result()
}

// madeMessage is a message of the run that a persist of unknown outcome
// made: its key's final line, or a replay, places it at seq.
type madeMessage struct {
	seq   uint64
	first int32 // the earliest persist that can have made it: none made it earlier
	line  int32 // the line placing it
	by    placedBy
}

// placedBy is what kind of line placed a madeMessage.
type placedBy uint8

const (
	placedByReplay placedBy = iota
	placedByMessagesLine
	placedByIdempotencyRecord
)

// proof is the placing line, in words: formatted only for a violation,
// since a history of millions of keys may place hundreds of thousands.
func (m madeMessage) proof() string {
	switch m.by {
	case placedByMessagesLine:
		return fmt.Sprintf("the final messages line at line %d", m.line)
	case placedByIdempotencyRecord:
		return fmt.Sprintf("the final idempotency record at line %d", m.line)
	}
	return fmt.Sprintf("the replay at line %d (the key's first ok answer)", m.line)
}

// created lists, by chat, the messages of the run that persists not acked
// as new made, where something places them, each made no earlier than
// the earliest of its key's persists that can have made it was invoked:
//   - a key no persist was acked as new for, whose final messages line
//     (else its idempotency record, which is written with it) places its
//     message: one of its persists of unknown outcome made it (a key whose
//     persists all ended made nothing of its own: fail has no effect);
//   - a key whose first ok answer, in file order, is a replay: the message
//     it answers was made by a persist of the key invoked before that
//     answer came that had not failed by then (none had been answered ok).
//
// The replay's rule reads only the lines up to the replay, so the online
// check (checker/online) decides it the moment the replay comes, as it
// reads: the persists still outstanding then, and those that timed out.
// Above the initial counter only.
func created(x *index) map[int32][]madeMessage {
	out := map[int32][]madeMessage{}
	add := func(c int32, m madeMessage) {
		if m.seq > x.InitialCounter {
			out[c] = append(out[c], m)
		}
	}
	for k := range x.KeyCreated {
		ops := x.KeyOps(int32(k))
		if m, ok := madeBeforeFirstReplay(x, ops); ok {
			add(x.Ops.At(m.first).Chat, m)
		}
		if x.KeyCreated[k] {
			continue
		}
		first := int32(-1)
		for _, o := range ops {
			if st := x.Ops.At(o).Status; st == store.StInfo || st == store.StOpen {
				first = o
				break // in invoke order
			}
		}
		if first < 0 {
			continue
		}
		fin := x.KeyMsg[k]
		if fin < 0 {
			fin = x.KeyIdem[k]
		}
		if fin >= 0 {
			f := x.Fin.At(fin)
			by := placedByMessagesLine
			if f.Table == store.TableIdempotency {
				by = placedByIdempotencyRecord
			}
			add(x.Ops.At(first).Chat, madeMessage{seq: f.Seq, first: first, line: int32(f.Line), by: by})
		}
	}
	return out
}

// madeBeforeFirstReplay: when a key's first ok answer (by line) is a replay,
// the message it answers and the earliest persist of the key that can
// have made it (invoked on a line before the replay's answer, not the
// replay, not failed on a line before it), if any.
func madeBeforeFirstReplay(x *index, ops []int32) (madeMessage, bool) {
	replay := int32(-1)
	for _, o := range ops {
		if x.Ops.At(o).Status == store.StOK && (replay < 0 || x.DoneLine(o) < x.DoneLine(replay)) {
			replay = o
		}
	}
	if replay < 0 || !x.IsDedup(replay) {
		return madeMessage{}, false
	}
	answered := x.DoneLine(replay)
	first := int32(-1)
	for _, o := range ops {
		if o == replay || x.InvLine(o) >= answered {
			continue
		}
		if x.Ops.At(o).Status == store.StFail && x.DoneLine(o) < answered {
			continue
		}
		if first < 0 || x.Call(o) < x.Call(first) {
			first = o
		}
	}
	if first < 0 {
		return madeMessage{}, false
	}
	return madeMessage{seq: x.AckSeq(replay), first: first, line: int32(answered), by: placedByReplay}, true
}
