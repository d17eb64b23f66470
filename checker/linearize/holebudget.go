package linearize

import (
	"math"
	"sync/atomic"
)

// HolesPerCheck is how many holes (gaps: forbidden's sequences no
// operation names, which other writers must have filled: a node each)
// the exact checker places over every chat of one check. A chat's own
// bound (maxHoles) let each chat place a million: a 16 KB history of 50
// chats, each with acks at sequences 1 and 1,000,000, took 13 s and 890
// MB, 200 such chats 53 s and 2.1 GB (a red team's; a node costs about
// 18 bytes and a quarter of a microsecond). Past the budget a chat goes
// to porcupine, as one past its own bound does: about 4 s and 300 MB
// at most in all.
const HolesPerCheck = 1 << 23

// HoleBudget is what is left of a check's holes, shared by its workers.
// A nil *HoleBudget bounds nothing.
type HoleBudget struct{ left atomic.Int64 }

// NewHoleBudget is a budget of n holes.
func NewHoleBudget(n int64) *HoleBudget {
	b := &HoleBudget{}
	b.left.Store(n)
	return b
}

// take reserves n holes, reporting false (and reserving nothing) when
// fewer are left.
func (b *HoleBudget) take(n uint64) bool {
	if b == nil || n == 0 {
		return true
	}
	if n > math.MaxInt64/2 {
		return false
	}
	if b.left.Add(-int64(n)) >= 0 {
		return true
	}
	b.left.Add(int64(n))
	return false
}
