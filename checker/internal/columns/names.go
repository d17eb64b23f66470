package columns

import (
	"encoding/binary"
	"unsafe"
)

// nameArena keeps the keys and message ids a Log holds, millions of them,
// as bytes in shared blocks, each named by an 8-byte nameRef: block and
// offset, the length a varint before the bytes. As strings each also took
// a 16-byte header, and a header is a pointer the collector follows at
// every cycle of a long read.
type NameArena struct {
	blocks [][]byte
	spill  BlockSpill
}

// SpillTo makes a move each block it has stopped filling to f, but for
// the keep newest (SpillFile), to be read back by Get or Unspill.
func (a *NameArena) SpillTo(f *SpillFile, keep int) { a.spill.Start(f, keep) }

// Unspill reads every spilled block back; a spills no more.
func (a *NameArena) Unspill() {
	if a.spill.Active() {
		SpillLoadAll(&a.spill, a.blocks, 0)
	}
}

// Spilled is how many of a's blocks are on file.
func (a *NameArena) Spilled() int { return a.spill.Count() }

// nameRef is where a name is: block<<32 | offset. The zero ref is "": block
// 0 begins with an empty name.
type NameRef uint64

const nameBlock = 1 << 20

// add keeps s and returns its ref.
func (a *NameArena) Add(s string) NameRef {
	if len(a.blocks) == 0 {
		a.blocks = append(a.blocks, append(make([]byte, 0, 4<<10), 0)) // ref 0: ""
	}
	if s == "" {
		return 0
	}
	need := binary.MaxVarintLen64 + len(s)
	last := len(a.blocks) - 1
	if b := a.blocks[last]; cap(b)-len(b) < need {
		// Small first, so that a small history stays cheap; doubling
		// up to nameBlock, or a block of its own for a long name.
		a.blocks = append(a.blocks, make([]byte, 0, max(min(2*cap(b), nameBlock), need)))
		if a.spill.Active() {
			SpillFull(&a.spill, a.blocks, last)
		}
		last++
	}
	b := a.blocks[last]
	ref := NameRef(uint64(last)<<32 | uint64(len(b)))
	b = binary.AppendUvarint(b, uint64(len(s)))
	a.blocks[last] = append(b, s...)
	return ref
}

// get is the name at r, sharing the arena's bytes (never written again).
func (a *NameArena) Get(r NameRef) string {
	if r == 0 {
		return ""
	}
	blk := a.blocks[r>>32]
	if blk == nil {
		blk = SpillLoad(&a.spill, a.blocks, int(r>>32), 0)
	}
	b := blk[uint32(r):]
	n, k := binary.Uvarint(b)
	return unsafeString(b[k : k+int(n)])
}

// unsafeString is b as a string without a copy; b is never written again.
func unsafeString(b []byte) string { return unsafe.String(&b[0], len(b)) }
