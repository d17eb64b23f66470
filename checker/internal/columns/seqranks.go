package columns

import "slices"

// seqRanks places a sequence among a sorted list of distinct sequences by
// index: rank(s) is how many of them lie below s, what a binary search for
// s answers. Sync answers are placed this way, a look-up per message
// returned: a search took a step or two for each of the 28M a 5M-persist
// history's syncs returned. A list too sparse for a table (a corrupt or
// hostile sequence) gets none, and its users search it.
type SeqRanks struct {
	base  uint64
	ranks []int32 // rank(base+i); empty without a table
	n     int
}

// build ranks the n sequences seq(0) < seq(1) < … and reports whether it
// made a table.
func (r *SeqRanks) Build(n int, seq func(i int) uint64) bool {
	r.ranks, r.n = r.ranks[:0], n
	if n == 0 {
		return false
	}
	first, last := seq(0), seq(n-1)
	size, ok := TableSize(first, last, n)
	if !ok {
		return false
	}
	r.base = first
	r.ranks = slices.Grow(r.ranks, size)[:size]
	k := 0
	for i := range r.ranks {
		for seq(k) < first+uint64(i) {
			k++
		}
		r.ranks[i] = int32(k)
	}
	return true
}

// built reports whether the last build made a table.
func (r *SeqRanks) Built() bool { return len(r.ranks) > 0 }

// rank is how many of the sequences lie below s; only with a table.
func (r *SeqRanks) Rank(s uint64) int {
	switch {
	case s <= r.base:
		return 0
	case s-r.base >= uint64(len(r.ranks)):
		return r.n
	}
	return int(r.ranks[s-r.base])
}

// place is where s is or would go in l, sorted by sequence (cmp orders an
// element against a sequence), of which r holds the ranks: read from r's
// table when it has one, else searched for from index from on
// (searchFrom).
func Place[E any](r *SeqRanks, l []E, s uint64, from int, cmp func(E, uint64) int) int {
	if r.Built() {
		return r.Rank(s)
	}
	i, _ := SearchFrom(l, from, s, cmp)
	return i
}

// tableSize is the length of a table indexed by sequence from first to
// last, for n entries; false when they are too sparse for one (a corrupt
// or hostile sequence), so that a few entries never take gigabytes.
func TableSize(first, last uint64, n int) (int, bool) {
	if last-first >= uint64(2*n+1024) {
		return 0, false
	}
	return int(last - first + 1), true
}
