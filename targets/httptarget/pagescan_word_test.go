package httptarget

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// The eight-byte test finds a quote, a backslash or a control byte
// wherever it stands, beside any other bytes, and nothing else.
func TestHasStringSpecialIsEachByteLookedAt(t *testing.T) {
	special := func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 }
	check := func(w [8]byte) {
		want := false
		for _, c := range w {
			want = want || special(c)
		}
		if got := hasStringSpecial(binary.LittleEndian.Uint64(w[:])); got != want {
			t.Fatalf("% x: %v, want %v", w, got, want)
		}
	}
	for _, fill := range []byte{'a', 0x20, 0x7f, 0x80, 0xff, '"' + 1, '\\' - 1} {
		for at := range 8 {
			for c := range 256 {
				w := [8]byte{fill, fill, fill, fill, fill, fill, fill, fill}
				w[at] = byte(c)
				check(w)
			}
		}
	}
	r := rand.New(rand.NewPCG(8, 8))
	for range 1_000_000 {
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], r.Uint64())
		check(w)
	}
}
