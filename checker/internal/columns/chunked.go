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
}

const (
	chunkShift = 14
	chunkLen   = 1 << chunkShift
)

// add appends v and returns its index.
func (c *Chunked[T]) Add(v T) int32 {
	last := len(c.blocks) - 1
	if last < 0 || len(c.blocks[last]) == chunkLen {
		c.blocks = append(c.blocks, make([]T, 0, chunkLen))
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
			c.blocks = append(c.blocks, make([]T, 0, chunkLen))
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
	return &c.blocks[i>>chunkShift][i&(chunkLen-1)]
}

func (c *Chunked[T]) Len() int { return c.n }

// count is len as an index: records are numbered by int32.
func (c *Chunked[T]) Count() int32 { return int32(c.n) }

// each calls f on every record in order.
func (c *Chunked[T]) Each(f func(*T)) {
	for _, b := range c.blocks {
		for i := range b {
			f(&b[i])
		}
	}
}

// flat returns every record as one slice and empties c; each block is let
// go once copied, so the records are held about once.
func (c *Chunked[T]) Flat() []T {
	out := make([]T, 0, c.n)
	for i, b := range c.blocks {
		out = append(out, b...)
		c.blocks[i] = nil
	}
	*c = Chunked[T]{}
	return out
}
