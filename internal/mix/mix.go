// Package mix is the 64-bit mixer chatseq's own hashes share.
package mix

// Mix64 is SplitMix64's finalizer: a bijection on uint64 in which every
// output bit depends on every input bit.
func Mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
