package checker

import (
	"slices"
	"testing"
)

// A chunked sequence reads back, updates in place and flattens to exactly
// what was added, with and without a first block from a size hint, across
// block boundaries.
func TestChunkedIsASlice(t *testing.T) {
	for _, hint := range []int{0, 1, 100, chunkLen + 3} {
		for _, n := range []int{0, 1, 99, 100, 101, chunkLen, 3*chunkLen + 7} {
			var c chunked[int]
			c.reserve(hint)
			var want []int
			for i := range n {
				if got := c.add(i * 3); int(got) != i {
					t.Fatalf("hint %d: add %d returned index %d", hint, i, got)
				}
				want = append(want, i*3)
			}
			for i := range n {
				*c.at(int32(i)) += 1
				want[i]++
			}
			var each []int
			c.each(func(v *int) { each = append(each, *v) })
			if c.len() != n || !slices.Equal(each, want) {
				t.Fatalf("hint %d, %d added: len %d, each %v…", hint, n, c.len(), each[:min(len(each), 5)])
			}
			if got := c.flat(); !slices.Equal(got, want) || c.len() != 0 {
				t.Fatalf("hint %d, %d added: flat differs (len %d, %d left)", hint, n, len(got), c.len())
			}
		}
	}
}
