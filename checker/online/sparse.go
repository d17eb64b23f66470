package online

import "github.com/google/btree"

// sparseAcks is a chat's acks kept apart from the blocks (onlineAcked),
// ordered by sequence in a B-tree: each ack costs O(log n) in whatever
// order a service's far-apart sequences come. A sorted slice moved every
// ack above a new one: about 0.25 ms an ack once 100k were kept, for
// sequences acked from the highest down.
type sparseAcks struct {
	t *btree.BTreeG[sparseAck] // nil until the first ack kept apart
}

// sparseDegree is the B-tree's degree: nodes of up to 63 acks of 24
// bytes, a few cache lines each.
const sparseDegree = 32

func (s *sparseAcks) len() int {
	if s.t == nil {
		return 0
	}
	return s.t.Len()
}

// get is seq's ack kept apart, if there is one.
func (s *sparseAcks) get(seq uint64) (onlineSeqAck, bool) {
	if s.t == nil {
		return onlineSeqAck{}, false
	}
	a, ok := s.t.Get(sparseAck{seq: seq})
	return a.onlineSeqAck, ok
}

// put keeps a, whose sequence has no ack kept apart yet.
func (s *sparseAcks) put(a sparseAck) {
	if s.t == nil {
		s.t = btree.NewG(sparseDegree, func(x, y sparseAck) bool { return x.seq < y.seq })
	}
	s.t.ReplaceOrInsert(a)
}

// takeBelow removes the acks of sequences below n and hands them to f,
// lowest first.
func (s *sparseAcks) takeBelow(n uint64, f func(sparseAck)) {
	for s.t != nil {
		a, ok := s.t.Min()
		if !ok || a.seq >= n {
			return
		}
		s.t.DeleteMin()
		f(a)
	}
}

// from hands f the acks of sequences at or above seq, lowest first, until
// f returns false.
func (s *sparseAcks) from(seq uint64, f func(sparseAck) bool) {
	if s.t != nil {
		s.t.AscendGreaterOrEqual(sparseAck{seq: seq}, f)
	}
}
