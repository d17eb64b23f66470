package store

import "hash/maphash"

// StringHash stands for a message id or payload hash, which a check only
// ever compares: 0 for none. Two distinct values collide with probability
// 2^-64, which could only hide a mismatch, never invent one.
func StringHash(s string) uint64 {
	if s == "" {
		return 0
	}
	return nonZero(maphash.String(hashSeed, s))
}

// BytesHash is StringHash of id's bytes (id not empty).
func BytesHash(id []byte) uint64 { return nonZero(maphash.Bytes(hashSeed, id)) }

// nonZero keeps 0 for "no string": a hash that is 0 becomes 1.
func nonZero(h uint64) uint64 {
	if h == 0 {
		return 1
	}
	return h
}

var hashSeed = maphash.MakeSeed()
