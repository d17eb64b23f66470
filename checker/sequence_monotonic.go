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
// acked with dedup=false created its message; so did one of a key's
// persists of unknown outcome when the key's message is placed (created,
// below) and no persist of the key was acked as new.
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
			v.fail([]int{x.DoneLine(h.Ref), x.InvLine(m.first), m.line},
				"chat %q: seq %d was acked as a new message at line %d before the persist at line %d was invoked, yet %s puts that persist's key's message (it or a retry made it: no persist of the key was acked as new) at seq %d",
				x.ChatNames[c], h.Value, x.DoneLine(h.Ref), x.InvLine(m.first), m.proof, m.seq)
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
// made: its key's final line, or a replay, places it at seq, and no
// persist of the key was acked as new.
type madeMessage struct {
	seq   uint64
	first int32  // the key's first persist of unknown outcome: none made it earlier
	line  int    // the line placing it
	proof string // that line, in words
}

// created lists, by chat, the messages of the run that persists of unknown
// outcome made, where something places them: the key's final messages
// line (else its idempotency record, which is written with it), and every
// replay of the key. A key whose persists all ended (fail has no effect)
// made nothing of its own here; one above the initial counter only.
func created(x *index) map[int32][]madeMessage {
	out := map[int32][]madeMessage{}
	for k := range x.KeyCreated {
		if x.KeyCreated[k] {
			continue
		}
		first := int32(-1)
		for _, o := range x.KeyOps(int32(k)) {
			if st := x.Ops.At(o).Status; st == store.StInfo || st == store.StOpen {
				first = o
				break // in invoke order
			}
		}
		if first < 0 {
			continue
		}
		c := x.Ops.At(first).Chat
		add := func(seq uint64, line int, proof string) {
			if seq > x.InitialCounter {
				out[c] = append(out[c], madeMessage{seq: seq, first: first, line: line, proof: proof})
			}
		}
		fin := x.KeyMsg[k]
		if fin < 0 {
			fin = x.KeyIdem[k]
		}
		if fin >= 0 {
			f := x.Fin.At(fin)
			table := "messages line"
			if f.Table == store.TableIdempotency {
				table = "idempotency record"
			}
			add(f.Seq, int(f.Line), fmt.Sprintf("the final %s at line %d", table, f.Line))
		}
		for _, o := range x.KeyOps(int32(k)) {
			if x.Ops.At(o).Status == store.StOK && x.IsDedup(o) {
				add(x.AckSeq(o), x.DoneLine(o), fmt.Sprintf("the replay at line %d", x.DoneLine(o)))
			}
		}
	}
	return out
}
