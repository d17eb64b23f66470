package linearize

import "testing"

// Both forms answer as a map would: the last key set wins, a sequence
// never set (inside or outside the span) has none, and key 0 is a key.
func TestSeqKeys(t *testing.T) {
	for _, c := range []struct {
		name      string
		lo, hi    uint64
		n         int
		wantDense bool
	}{
		{"dense", 10, 20, 4, true},
		{"sparse", 10, 1 << 40, 4, false},
	} {
		s := NewSeqKeys(c.lo, c.hi, c.n)
		if got := s.dense != nil; got != c.wantDense {
			t.Fatalf("%s: dense %v, want %v", c.name, got, c.wantDense)
		}
		s.Set(10, 0)
		s.Set(c.hi, 7)
		s.Set(12, 3)
		s.Set(12, 5)
		want := map[uint64]int32{10: 0, c.hi: 7, 12: 5}
		for _, seq := range []uint64{0, 9, 10, 11, 12, 13, c.hi - 1, c.hi, c.hi + 1} {
			k, held := s.Get(seq)
			wk, wheld := want[seq]
			if k != wk && held || held != wheld {
				t.Errorf("%s: Get(%d) = %d, %v; want %d, %v", c.name, seq, k, held, wk, wheld)
			}
		}
	}
	var none *SeqKeys
	if _, held := none.Get(1); held {
		t.Errorf("a nil SeqKeys holds a sequence")
	}
}
