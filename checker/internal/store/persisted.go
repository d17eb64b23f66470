package store

import (
	"cmp"
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
	for _, o := range x.Acks[lo:hi] {
		s, id := x.AckSeq(o), x.AckID(o)
		if slices.ContainsFunc(buf[sort1Persisted(buf, s):], func(p PersistedMsg) bool { return p.ID == id }) {
			continue
		}
		buf = append(buf, PersistedMsg{Seq: s, ID: id, Line: x.DoneLine(o), Fin: -1})
	}
	return buf
}

// sort1Persisted is the first index of ms with seq >= s.
func sort1Persisted(ms []PersistedMsg, s uint64) int {
	i, _ := slices.BinarySearchFunc(ms, s, func(p PersistedMsg, s uint64) int { return cmp.Compare(p.Seq, s) })
	return i
}
