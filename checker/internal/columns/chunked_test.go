package columns

import (
	"slices"
	"testing"
)

// A chunked sequence reads back, updates in place and flattens to exactly
// what was added, across block boundaries.
func TestChunkedIsASlice(t *testing.T) {
	for _, n := range []int{0, 1, 99, chunkLen - 1, chunkLen, chunkLen + 1, 3*chunkLen + 7} {
		var c Chunked[int]
		var want []int
		for i := range n {
			if got := c.Add(i * 3); int(got) != i {
				t.Fatalf("add %d returned index %d", i, got)
			}
			want = append(want, i*3)
		}
		for i := range n {
			*c.At(int32(i)) += 1
			want[i]++
		}
		var each []int
		c.Each(func(v *int) { each = append(each, *v) })
		if c.Len() != n || c.Count() != int32(n) || !slices.Equal(each, want) {
			t.Fatalf("%d added: len %d, each %v…", n, c.Len(), each[:min(len(each), 5)])
		}
		if got := c.Flat(); !slices.Equal(got, want) || c.Len() != 0 {
			t.Fatalf("%d added: flat differs (len %d, %d left)", n, len(got), c.Len())
		}
	}
}
