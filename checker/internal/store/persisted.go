package store

import (
	"slices"
)

// PersistedMsg is one message known to be persisted: a final messages line,
// or without that table an acknowledged (seq, message_id).
type PersistedMsg struct {
	Seq  uint64
	ID   uint32 // interned message id
	Line int    // its final line, or its earliest ack's line
	Fin  int32  // its final line's index, -1
}

// PersistedIn lists chat c's persisted messages by sequence.
func (x *Index) PersistedIn(c int32, buf []PersistedMsg) []PersistedMsg {
	buf = buf[:0]
	if x.HasMessages {
		lo, hi := Span(x.MsgSpan, c)
		for _, m := range x.Msgs[lo:hi] {
			f := x.Fin.At(m)
			if n := len(buf); n > 0 && buf[n-1].Seq == f.Seq && buf[n-1].ID == f.MessageID {
				continue // the same message listed twice
			}
			buf = append(buf, PersistedMsg{Seq: f.Seq, ID: f.MessageID, Line: int(f.Line), Fin: m})
		}
		return buf
	}
	lo, hi := Span(x.AckSpan, c)
	// The acks come in sequence order: the messages at the sequence being
	// read are buf[run:], looked through while few, and by a set of their
	// ids once many (100,000 acks of one sequence took minutes to list).
	run := 0
	var ids map[uint32]struct{}
	for _, o := range x.Acks[lo:hi] {
		s, id := x.AckSeq(o), x.AckID(o)
		if n := len(buf); n > run && buf[run].Seq != s {
			run = n
			clear(ids)
		}
		if at := buf[run:]; len(at) < manyAtOneSeq {
			if slices.ContainsFunc(at, func(p PersistedMsg) bool { return p.ID == id }) {
				continue
			}
		} else {
			if len(ids) == 0 {
				if ids == nil {
					ids = map[uint32]struct{}{}
				}
				for _, p := range at {
					ids[p.ID] = struct{}{}
				}
			}
			if _, dup := ids[id]; dup {
				continue
			}
			ids[id] = struct{}{}
		}
		buf = append(buf, PersistedMsg{Seq: s, ID: id, Line: x.DoneLine(o), Fin: -1})
	}
	return buf
}

// manyAtOneSeq is how many messages at one sequence PersistedIn looks
// through before it keeps a set of their ids.
const manyAtOneSeq = 16
