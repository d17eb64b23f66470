package columns

// chunked is an append-only sequence of records kept in blocks that never
// move. The Log grows its operations, allocations and final lines this way
// while a history is read: a growing slice copied every record about four
// times over (Go grows large slices by a quarter), and zeroed and faulted
// in each copy's pages, which was a fifth of bench's CPU after its writers
// stopped. The index reads the records where they are (at, each).
type Chunked[T any] struct {
	blocks [][]T // of chunkLen each, the last one filling
	n      int
	spill  BlockSpill
	free   [][]T // blocks spilled, to be filled again
}

// SpillTo makes c move its full blocks to f but for the keep newest
// (SpillFile), to be read back by At or Unspill.
func (c *Chunked[T]) SpillTo(f *SpillFile, keep int) { c.spill.Start(f, keep) }

// Unspill reads every spilled block back; c spills no more.
func (c *Chunked[T]) Unspill() {
	if c.spill.Active() {
		SpillLoadAll(&c.spill, c.blocks, chunkLen)
		c.free = nil
	}
}

// Spilled is how many of c's blocks are on file.
func (c *Chunked[T]) Spilled() int { return c.spill.Count() }

// newBlock starts a block; the one before it is full.
func (c *Chunked[T]) newBlock() {
	if last := len(c.blocks) - 1; last >= 0 && c.spill.Active() {
		SpillFullReusing(&c.spill, c.blocks, last, &c.free)
	}
	blk := TakeFree(&c.free)
	if blk == nil {
		blk = make([]T, 0, chunkLen)
	}
	c.blocks = append(c.blocks, blk)
}

const (
	chunkShift = 14
	chunkLen   = 1 << chunkShift
)

// add appends v and returns its index.
func (c *Chunked[T]) Add(v T) int32 {
	last := len(c.blocks) - 1
	if last < 0 || len(c.blocks[last]) == chunkLen {
		c.newBlock()
		last++
	}
	c.blocks[last] = append(c.blocks[last], v)
	c.n++
	return int32(c.n - 1)
}

// addAll appends vs in order.
func (c *Chunked[T]) AddAll(vs []T) {
	for len(vs) > 0 {
		last := len(c.blocks) - 1
		if last < 0 || len(c.blocks[last]) == chunkLen {
			c.newBlock()
			last++
		}
		k := min(len(vs), chunkLen-len(c.blocks[last]))
		c.blocks[last] = append(c.blocks[last], vs[:k]...)
		c.n += k
		vs = vs[k:]
	}
}

// at is record i, to be read or updated in place.
func (c *Chunked[T]) At(i int32) *T {
	b := c.blocks[i>>chunkShift]
	if b == nil {
		b = c.load(i >> chunkShift)
	}
	return &b[i&(chunkLen-1)]
}

// load reads spilled block b back.
func (c *Chunked[T]) load(b int32) []T { return SpillLoad(&c.spill, c.blocks, int(b), chunkLen) }

func (c *Chunked[T]) Len() int { return c.n }

// count is len as an index: records are numbered by int32.
func (c *Chunked[T]) Count() int32 { return int32(c.n) }

// each calls f on every record in order.
func (c *Chunked[T]) Each(f func(*T)) {
	c.Unspill()
	for _, b := range c.blocks {
		for i := range b {
			f(&b[i])
		}
	}
}

// flat returns every record as one slice and empties c; each block is let
// go once copied, so the records are held about once.
func (c *Chunked[T]) Flat() []T {
	c.Unspill()
	out := make([]T, 0, c.n)
	for i, b := range c.blocks {
		out = append(out, b...)
		c.blocks[i] = nil
	}
	*c = Chunked[T]{}
	return out
}
