package bench

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
		if got, want := payloadHash(s), strconv.FormatUint(h.Sum64(), 16); got != want {
			t.Fatalf("%q: %s, want %s", s, got, want)
		}
	}
}
