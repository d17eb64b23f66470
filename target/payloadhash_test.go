package target

import (
	"hash/fnv"
	"strconv"
	"testing"
)

// Histories record payload_hash; it must stay FNV-1a so runs compare.
func TestPayloadHashIsFNV1a(t *testing.T) {
	for _, s := range []string{"", "message w1-m2", "é"} {
		h := fnv.New64a()
		h.Write([]byte(s))
		if got, want := PayloadHash(s), strconv.FormatUint(h.Sum64(), 16); got != want {
			t.Fatalf("%q: %s, want %s", s, got, want)
		}
	}
}

// appendHex writes what strconv does, at every digit count.
func TestAppendHexAgreesWithStrconv(t *testing.T) {
	vs := []uint64{0, 1, 0xf, 0x10, 0xff, 0x100, 1<<63 - 1, 1 << 63, ^uint64(0)}
	for shift := range 64 {
		vs = append(vs, 1<<shift, 1<<shift-1, 0x9e3779b97f4a7c15>>shift)
	}
	for _, v := range vs {
		if got, want := string(appendHex([]byte("x"), v)), "x"+strconv.FormatUint(v, 16); got != want {
			t.Fatalf("%#x: %q, want %q", v, got, want)
		}
	}
}
