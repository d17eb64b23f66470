package columns

// slab keeps many short runs of values (the sequences and message-id hashes
// of sync answers) in fixed-size blocks. Appending to one growing slice
// copied every value again at each doubling and left up to half of the last
// copy unused: for a million syncs that was a fifth of the ingest's time and
// its page faults. A run never straddles two blocks, so it reads back as one
// slice.
type Slab[T any] struct {
	blocks [][]T
	spill  BlockSpill
}

// SpillTo makes s move each block it has stopped filling to f, but for
// the keep newest (SpillFile), to be read back by Get or Unspill.
func (s *Slab[T]) SpillTo(f *SpillFile, keep int) { s.spill.Start(f, keep) }

// Unspill reads every spilled block back; s spills no more.
func (s *Slab[T]) Unspill() {
	if s.spill.Active() {
		SpillLoadAll(&s.spill, s.blocks, 0)
	}
}

// Spilled is how many of s's blocks are on file.
func (s *Slab[T]) Spilled() int { return s.spill.Count() }

// slabBlock is a block's length: large enough that a block per run of
// results is rare, small enough that the last one's slack does not matter.
const slabBlock = 1 << 16

// slabRef is where a run is: block, offset, length.
type SlabRef struct{ block, off, n int32 }

// add copies run into the slab.
func (s *Slab[T]) Add(run []T) SlabRef {
	dst, ref := s.Grow(len(run))
	copy(dst, run)
	return ref
}

// grow makes room for a run of n values and returns it to be filled.
func (s *Slab[T]) Grow(n int) ([]T, SlabRef) {
	last := len(s.blocks) - 1
	if last < 0 || cap(s.blocks[last])-len(s.blocks[last]) < n {
		s.blocks = append(s.blocks, make([]T, 0, max(slabBlock, n)))
		if last >= 0 && s.spill.Active() {
			SpillFull(&s.spill, s.blocks, last)
		}
		last++
	}
	b := s.blocks[last]
	off := len(b)
	s.blocks[last] = b[:off+n]
	return s.blocks[last][off : off+n], SlabRef{block: int32(last), off: int32(off), n: int32(n)}
}

// get is a run added before.
func (s *Slab[T]) Get(r SlabRef) []T {
	b := s.blocks[r.block]
	if b == nil {
		b = SpillLoad(&s.spill, s.blocks, int(r.block), 0)
	}
	return b[r.off : r.off+r.n]
}

// Len is the length of the run r refers to.
func (r SlabRef) Len() int { return int(r.n) }
