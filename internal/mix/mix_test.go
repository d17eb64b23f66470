package mix

import "testing"

// Mix64 is SplitMix64's finalizer: the reference generator's outputs
// from seed 0 (its state advanced by the golden gamma, then mixed).
func TestMix64IsSplitMix64(t *testing.T) {
	want := []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f}
	var state uint64
	for i, w := range want {
		state += 0x9e3779b97f4a7c15
		if got := Mix64(state); got != w {
			t.Fatalf("output %d: %#x, want %#x", i, got, w)
		}
	}
}
