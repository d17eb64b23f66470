package linearize

import (
	"cmp"
	"slices"
	"sort"
)

// The counter only grows, and a persist draws its sequence inside its own
// interval (two-phase allocation included: the allocation comes after the
// invoke, the ack after the allocation). So a persist invoked after
// another was acked as creating sequence q creates a message above q
// (HISTORY.md's sequence_monotonic: "of two persists that each created
// their message, the one acknowledged before the other was invoked has the
// smaller sequence"). For acks alone that is checked apart; here it bounds
// where a persist of unknown outcome can commit: above its floor, the
// highest sequence acked as new before it was invoked. Under gaps:
// forbidden the order of commits implies it; under gaps: allowed a commit
// may come long after its allocation, so the model needs it stated.

// allocOrder holds the persists acked as new, by sequence.
type allocOrder struct {
	seqs []uint64 // ascending
	// minRet[i] is the earliest ack among seqs[i:]: non-decreasing;
	// minOp[i] that ack's operation.
	minRet []int64
	minOp  []int32
}

func (m *Chat) allocOrder() *allocOrder {
	if m.alloc != nil {
		return m.alloc
	}
	type ack struct {
		seq uint64
		ret int64
		op  int32
	}
	var acks []ack
	for i := range m.Ops {
		if m.Ops[i].Kind == KindNew {
			acks = append(acks, ack{m.Ops[i].Seq, m.Ret[i], int32(i)})
		}
	}
	// Acks of a run come nearly in sequence order: pdqsort takes them
	// in linear time.
	slices.SortFunc(acks, func(a, b ack) int { return cmp.Compare(a.seq, b.seq) })
	a := &allocOrder{seqs: make([]uint64, len(acks)), minRet: make([]int64, len(acks)), minOp: make([]int32, len(acks))}
	low, lowOp := int64(timeMax), int32(-1)
	for i := len(acks) - 1; i >= 0; i-- {
		if acks[i].ret < low {
			low, lowOp = acks[i].ret, acks[i].op
		}
		a.seqs[i], a.minRet[i], a.minOp[i] = acks[i].seq, low, lowOp
	}
	m.alloc = a
	return a
}

// floor is the highest sequence acked as new before call (0: none): a
// persist invoked at call creates its message above it.
func (a *allocOrder) floor(call int64) uint64 {
	i := sort.Search(len(a.seqs), func(i int) bool { return a.minRet[i] >= call })
	if i == 0 {
		return 0
	}
	return a.seqs[i-1]
}

// deadline is the latest invoke of a persist that can create sequence q:
// the earliest ack of a new message at or above q (timeMax: none).
func (a *allocOrder) deadline(q uint64) int64 {
	i := a.atOrAbove(q)
	if i == len(a.seqs) {
		return timeMax
	}
	return a.minRet[i]
}

// deadlineAck is the operation whose ack sets deadline(q), -1 if none.
func (a *allocOrder) deadlineAck(q uint64) int32 {
	i := a.atOrAbove(q)
	if i == len(a.seqs) {
		return -1
	}
	return a.minOp[i]
}

// atOrAbove is the index of the first sequence at or above q.
func (a *allocOrder) atOrAbove(q uint64) int {
	return sort.Search(len(a.seqs), func(i int) bool { return a.seqs[i] >= q })
}

// floorOf is operation i's floor (an operation of unknown outcome).
func (m *Chat) floorOf(i int32) uint64 {
	return m.allocOrder().floor(m.Call[i])
}

// floors reports whether some operation of unknown outcome has a floor
// above the initial counter: only then can pending commits' free
// sequences fail to nest.
func (m *Chat) floors() bool {
	if m.anyFloor == 0 {
		m.anyFloor = -1
		for i := range m.Ops {
			if m.Ops[i].Kind == KindInfo && m.floorOf(int32(i)) > m.Base {
				m.anyFloor = 1
				break
			}
		}
	}
	return m.anyFloor > 0
}

// fitMatching reports whether s's pending commits can each hold a distinct
// free sequence outside its ranges. Each needs only its len(pending)
// lowest candidates: one matched higher has a lower one no other took.
func (m *Chat) fitMatching(s *lstate) bool {
	k := len(s.pending)
	cands := make([][]uint64, k)
	for p := range s.pending {
		cands[p] = m.firstFree(s, s.pending[p].hidden, k)
		if len(cands[p]) == 0 {
			return false
		}
	}
	holder := map[uint64]int{} // sequence: the pending commit holding it
	var try func(p int, seen map[uint64]bool) bool
	try = func(p int, seen map[uint64]bool) bool {
		for _, q := range cands[p] {
			if seen[q] {
				continue
			}
			seen[q] = true
			if h, taken := holder[q]; !taken || try(h, seen) {
				holder[q] = p
				return true
			}
		}
		return false
	}
	for p := range k {
		if !try(p, map[uint64]bool{}) {
			return false
		}
	}
	return true
}

// firstFree lists up to k free sequences above the initial counter
// outside the sorted ranges rs, lowest first.
func (m *Chat) firstFree(s *lstate, rs []hidRange, k int) []uint64 {
	var out []uint64
	at, r := m.Base, 0 // candidates lie above at, up to the top
	for top := m.Top(); len(out) < k && at < top; {
		x := at + 1
		for r < len(rs) && rs[r].hi < x {
			r++
		}
		if r < len(rs) && rs[r].lo < x {
			at = rs[r].hi // x is hidden: skip its range
			continue
		}
		if _, used := tget(s.seqs, x); !used && !m.isOther(x) {
			out = append(out, x)
		}
		at = x
	}
	return out
}
