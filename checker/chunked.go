package checker

// chunked is an append-only sequence of records kept in blocks that never
// move. The Log grows its operations, allocations and final lines this way
// while a run is fed to it: a growing slice copied every record about four
// times over (Go grows large slices by a quarter), and zeroed and faulted
// in each copy's pages, which was a fifth of bench's CPU after its writers
// stopped. The index wants one slice: flat gathers the blocks once.
type chunked[T any] struct {
	first  []T   // the first block, as large as a size hint asks
	blocks [][]T // then blocks of chunkLen
	n      int
}

const (
	chunkShift = 14
	chunkLen   = 1 << chunkShift
)

// reserve makes the first block hold n records (a size hint); it is for an
// empty sequence.
func (c *chunked[T]) reserve(n int) {
	if c.n == 0 && len(c.blocks) == 0 {
		c.first = make([]T, 0, n)
	}
}

// add appends v and returns its index.
func (c *chunked[T]) add(v T) int32 {
	i := c.n
	c.n++
	if len(c.blocks) == 0 && len(c.first) < cap(c.first) {
		c.first = append(c.first, v)
		return int32(i)
	}
	last := len(c.blocks) - 1
	if last < 0 || len(c.blocks[last]) == chunkLen {
		c.blocks = append(c.blocks, make([]T, 0, chunkLen))
		last++
	}
	c.blocks[last] = append(c.blocks[last], v)
	return int32(i)
}

// at is record i, to be read or updated in place.
func (c *chunked[T]) at(i int32) *T {
	if int(i) < len(c.first) {
		return &c.first[i]
	}
	j := int(i) - len(c.first)
	return &c.blocks[j>>chunkShift][j&(chunkLen-1)]
}

func (c *chunked[T]) len() int { return c.n }

// each calls f on every record in order.
func (c *chunked[T]) each(f func(*T)) {
	for i := range c.first {
		f(&c.first[i])
	}
	for _, b := range c.blocks {
		for i := range b {
			f(&b[i])
		}
	}
}

// flat returns every record as one slice and empties c. Without blocks
// beyond the first (a size hint was right) nothing is copied; otherwise
// each block is let go once copied, so the records are held about once.
func (c *chunked[T]) flat() []T {
	if len(c.blocks) == 0 {
		out := c.first
		*c = chunked[T]{}
		return out
	}
	out := make([]T, 0, c.n)
	out = append(out, c.first...)
	c.first = nil
	for i, b := range c.blocks {
		out = append(out, b...)
		c.blocks[i] = nil
	}
	*c = chunked[T]{}
	return out
}

// count is len as an index: records are numbered by int32.
func (c *chunked[T]) count() int32 { return int32(c.n) }
