package store

import (
	"cmp"
	"slices"
)

// EarliestAck is chat c's first ack of (seq, id) to return, -1.
func (x *Index) EarliestAck(c int32, seq uint64, id uint32) int32 {
	lo, hi := Span(x.AckSpan, c)
	as := x.Acks[lo:hi]
	i, _ := slices.BinarySearchFunc(as, seq, func(o int32, s uint64) int { return cmp.Compare(x.AckSeq(o), s) })
	best := int32(-1)
	for ; i < len(as) && x.AckSeq(as[i]) == seq; i++ {
		if x.AckID(as[i]) == id && (best < 0 || x.Ret(as[i]) < x.Ret(best)) {
			best = as[i]
		}
	}
	return best
}
