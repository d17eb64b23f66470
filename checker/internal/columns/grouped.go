package columns

// grouped is how the Log keeps operations and allocations while a history
// is read: in blocks, as chunked does, except that a group (a chat) that
// has had a block's worth of records gets blocks of its own. The
// invariants read a chat's records one after another; kept in record
// order, a run's chats interleave, and every read was a cache miss (a 10 s
// run of 64 chats spent 1.9 s of CPU more in the check than with its
// records grouped by chat). A chat's first records share blocks with other
// chats', so that many small chats do not each hold a mostly empty block.
//
// A record's number is its block and place in it, so the last block of
// each group leaves numbers unused: compact moves the records to a
// chunked, numbered densely, once the history is read.
type Grouped[T any] struct {
	blocks [][]T // each of groupLen capacity
	n      int
	shared int     // 1 + the shared block being filled; 0 none
	own    []int   // by group: 1 + its own block being filled; 0 none
	seen   []int32 // by group: its records so far, counted up to groupShared
	spill  BlockSpill
	free   [][]T // blocks spilled, to be filled again
	// toSpill is 1 + a block filled by the last add, to be spilled at
	// the next (AddZero's record is filled after it returns); 0 none.
	toSpill int
}

// SpillTo makes g move its full blocks to f but for the keep newest
// (SpillFile), to be read back by At or Unspill.
func (g *Grouped[T]) SpillTo(f *SpillFile, keep int) { g.spill.Start(f, keep) }

// Unspill reads every spilled block back; g spills no more.
func (g *Grouped[T]) Unspill() {
	g.toSpill = 0 // stays in memory
	if g.spill.Active() {
		SpillLoadAll(&g.spill, g.blocks, groupLen)
		g.free = nil
	}
}

// Spilled is how many of g's blocks are on file.
func (g *Grouped[T]) Spilled() int { return g.spill.Count() }

const (
	groupShift = 10
	groupLen   = 1 << groupShift
	// groupShared is how many records a group keeps in shared blocks
	// before it gets its own: four blocks' worth, so that the unused end
	// of a group's last block is at most a fifth of its records.
	groupShared = 4 * groupLen
)

// add appends v to group's records (a negative group shares blocks) and
// returns its number.
func (g *Grouped[T]) Add(group int32, v T) int32 {
	i, p := g.AddZero(group)
	*p = v
	return i
}

// AddZero appends a zero record to group's records and returns its number
// and place, to be filled in place before the next Add: a record built
// apart and copied in is read back by 16-byte loads of fields just stored
// one by one, which wait for every store ahead of them to reach the cache
// (a failed store forwarding; the Log's stores are to cold memory). The
// block it fills is spilled at the next Add, once filled.
func (g *Grouped[T]) AddZero(group int32) (int32, *T) {
	if b := g.toSpill - 1; b >= 0 {
		g.toSpill = 0
		SpillFullReusing(&g.spill, g.blocks, b, &g.free)
	}
	b := g.blockFor(group)
	i := int32(b<<groupShift | len(g.blocks[b]))
	var zero T
	g.blocks[b] = append(g.blocks[b], zero)
	g.n++
	if len(g.blocks[b]) == groupLen && g.spill.Active() {
		g.toSpill = b + 1
	}
	return i, &g.blocks[b][len(g.blocks[b])-1]
}

func (g *Grouped[T]) blockFor(group int32) int {
	if group >= 0 {
		for int(group) >= len(g.own) {
			g.own, g.seen = append(g.own, 0), append(g.seen, 0)
		}
		if g.seen[group] == groupShared {
			b := g.own[group] - 1
			if b < 0 || g.full(b) {
				b = g.newBlock()
				g.own[group] = b + 1
			}
			return b
		}
		g.seen[group]++
	}
	b := g.shared - 1
	if b < 0 || g.full(b) {
		b = g.newBlock()
		g.shared = b + 1
	}
	return b
}

// full says whether block b takes no more records: it holds groupLen, or
// it was spilled (only full blocks are).
func (g *Grouped[T]) full(b int) bool { return g.blocks[b] == nil || len(g.blocks[b]) == groupLen }

func (g *Grouped[T]) newBlock() int {
	blk := TakeFree(&g.free)
	if blk == nil {
		blk = make([]T, 0, groupLen)
	}
	g.blocks = append(g.blocks, blk)
	return len(g.blocks) - 1
}

// at is record i, to be read or updated in place.
func (g *Grouped[T]) At(i int32) *T {
	b := g.blocks[i>>groupShift]
	if b == nil {
		b = g.load(i >> groupShift)
	}
	return &b[i&(groupLen-1)]
}

// load reads spilled block b back.
func (g *Grouped[T]) load(b int32) []T { return SpillLoad(&g.spill, g.blocks, int(b), groupLen) }

func (g *Grouped[T]) Len() int { return g.n }

// renumbering maps a grouped record's number to its dense number after
// compact.
type Renumbering []int32 // by block: the dense number of its first record

func (r Renumbering) Of(i int32) int32 { return r[i>>groupShift] + i&(groupLen-1) }

// renumbering is where compact will put each block's records: blocks in
// order, each record after the last of the block before.
func (g *Grouped[T]) Renumbering() Renumbering {
	g.Unspill()
	r := make(Renumbering, len(g.blocks))
	next := int32(0)
	for b, recs := range g.blocks {
		r[b] = next
		next += int32(len(recs))
	}
	return r
}

// compose maps each grouped number to dense's value at its dense number
// (n records in all): a map by grouped number, for records that keep the
// numbers add gave them.
func (r Renumbering) Compose(dense []int32, n int) []int32 {
	out := make([]int32, len(r)<<groupShift)
	for b, first := range r {
		end := n
		if b+1 < len(r) {
			end = int(r[b+1])
		}
		copy(out[b<<groupShift:], dense[first:end])
	}
	return out
}

// compact moves every record to a chunked in block order (renumbering
// says where each went) and empties g; each block is let go once copied,
// so the records are held about once.
func (g *Grouped[T]) Compact() Chunked[T] {
	g.Unspill()
	var c Chunked[T]
	for b, recs := range g.blocks {
		c.AddAll(recs)
		g.blocks[b] = nil
	}
	*g = Grouped[T]{}
	return c
}

// OwnBlocks counts the groups that were given blocks of their own.
func (g *Grouped[T]) OwnBlocks() int {
	n := 0
	for _, b := range g.own {
		if b > 0 {
			n++
		}
	}
	return n
}
