package columns

// Fenwick counts marked positions in prefix ranges (a Fenwick tree): make
// it one longer than the positions.
type Fenwick []int32

// Add marks position i.
func (f Fenwick) Add(i int) {
	for i++; i < len(f); i += i & -i {
		f[i]++
	}
}

// Sum counts marked positions in [0, i).
func (f Fenwick) Sum(i int) int {
	n := 0
	for ; i > 0; i -= i & -i {
		n += int(f[i])
	}
	return n
}
