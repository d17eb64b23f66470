package columns

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSeqCodeRoundTrips(t *testing.T) {
	cases := [][]uint64{
		nil,
		{0},
		{1, 2, 3, 4},
		{5, 9, 10, 200, 201},
		{10, 3, 3, 0, math.MaxUint64, 1, math.MaxUint64 - 1}, // malformed answers read back as written
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		n := rng.IntN(120)
		s := make([]uint64, n)
		at := rng.Uint64N(1 << 40)
		for i := range s {
			switch rng.IntN(10) {
			case 0:
				at = rng.Uint64()
			case 1:
				at += rng.Uint64N(1000)
			default:
				at++
			}
			s[i] = at
		}
		cases = append(cases, s)
	}
	for _, want := range cases {
		b := AppendSeqs(nil, want)
		got := DecodeSeqs(nil, b)
		if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("decode(encode(%v)) = %v", want, got)
		}
	}
}

// An ascending page costs a byte a sequence: what the coding is for.
func TestSeqCodeAscendingPageTakesAByteASequence(t *testing.T) {
	page := make([]uint64, 100)
	for i := range page {
		page[i] = 1_000_000 + uint64(i)
	}
	if got, first := len(AppendSeqs(nil, page)), binary.PutUvarint(make([]byte, 10), zigzag(1_000_000)); got != first+99 {
		t.Errorf("100 consecutive sequences take %d bytes, want %d", got, first+99)
	}
}

func FuzzSeqCode(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	f.Fuzz(func(t *testing.T, raw []byte) {
		var want []uint64
		for len(raw) >= 8 {
			want = append(want, binary.LittleEndian.Uint64(raw))
			raw = raw[8:]
		}
		got := DecodeSeqs(nil, AppendSeqs(nil, want))
		if len(got) != len(want) || (len(want) > 0 && !slices.Equal(got, want)) {
			t.Fatalf("decode(encode(%v)) = %v", want, got)
		}
	})
}
