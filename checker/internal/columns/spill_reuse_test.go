package columns

import (
	"runtime"
	"testing"
)

// A container spilling its full blocks fills the blocks it wrote out
// again rather than making new ones, and every record reads back as
// added: each block reached the file before it was filled again. Without
// the reuse, each block spilled is a new one (128 KB here), and the test
// fails on the bytes allocated.
func TestSpilledBlocksAreFilledAgain(t *testing.T) {
	for _, direct := range []bool{false, true} {
		f, err := newSpillFile(t.TempDir(), direct)
		if err != nil {
			t.Fatal(err)
		}
		var c Chunked[uint64]
		var g Grouped[uint64]
		c.SpillTo(f, 1)
		g.SpillTo(f, 1)
		add := func(from, to int) {
			for i := from; i < to; i++ {
				c.Add(uint64(i) * 7)
				g.Add(int32(i%2), uint64(i)*11)
			}
		}
		const warm, blocks = 4, 24
		add(0, warm*chunkLen)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		add(warm*chunkLen, blocks*chunkLen)
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew >= chunkLen*8 {
			t.Errorf("direct %v: %d blocks added allocated %d bytes, want less than a block's %d", direct, blocks-warm, grew, chunkLen*8)
		}
		if c.Spilled() < blocks-3 || g.Spilled() == 0 {
			t.Fatalf("direct %v: %d and %d blocks spilled", direct, c.Spilled(), g.Spilled())
		}
		for i := range blocks * chunkLen {
			if v := *c.At(int32(i)); v != uint64(i)*7 {
				t.Fatalf("direct %v: chunked record %d reads %d, want %d", direct, i, v, uint64(i)*7)
			}
		}
		g.Unspill()
		got := make(map[uint64]bool, blocks*chunkLen)
		for b := range g.blocks {
			for _, v := range g.blocks[b] {
				got[v] = true
			}
		}
		for i := range blocks * chunkLen {
			if !got[uint64(i)*11] {
				t.Fatalf("direct %v: grouped record %d is not there", direct, i)
			}
		}
		if len(got) != blocks*chunkLen {
			t.Fatalf("direct %v: %d grouped records, want %d", direct, len(got), blocks*chunkLen)
		}
		if err := f.Err(); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
}
