package history

import "unsafe"

// stringArena makes strings that share large blocks, instead of one heap
// object per key or message id: a million-operation history has millions of
// them, and one allocation each dominates reading time. The strings keep
// their block alive, which is fine for a History that is kept or dropped
// whole.
type stringArena struct {
	block  []byte
	blocks int // blocks made so far
}

// Blocks start small, so that reading a small history stays cheap, and
// double up to the maximum. The maximum is small too: any string still
// held (a parsed line in flight, a spare batch's stale line, an invoke
// awaiting its completion) keeps its whole block alive.
const (
	arenaFirstBlock = 4 << 10
	arenaMaxBlock   = 64 << 10
)

func (a *stringArena) string(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > cap(a.block)-len(a.block) {
		if len(b) > arenaMaxBlock/8 {
			return string(b) // large values get their own allocation
		}
		size := min(max(2*cap(a.block), arenaFirstBlock), arenaMaxBlock)
		a.block = make([]byte, 0, max(size, len(b)))
		a.blocks++
	}
	start := len(a.block)
	a.block = append(a.block, b...)
	// Bytes already in the block are never written again (later strings
	// only append), so the string is immutable as Go requires.
	return unsafe.String(&a.block[start], len(b))
}

// interner shares one copy of values that repeat across lines: chat ids,
// senders, error codes. Each is an allocation of its own, not in the
// arena: a value held for the whole read would keep its arena block alive
// for as long.
type interner struct {
	shared map[string]string
	last   string // the last value returned: most lines repeat it
}

func (in *interner) string(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if string(b) == in.last {
		return in.last
	}
	s, ok := in.shared[string(b)]
	if !ok {
		s = string(b)
		in.shared[s] = s
	}
	in.last = s
	return s
}
