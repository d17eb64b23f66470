package jsonscan

import (
	"hash/maphash"
	"slices"
	"testing"
)

// The plain array readers are shortcuts: what they take, the general
// reader takes with the same values and stops at the same byte; what they
// refuse, they leave unread.
func FuzzPlainArraysReadAsArrays(f *testing.F) {
	for _, seed := range []string{
		`[1,2,3]`, `[0]`, `[007]`, `[1, 2]`, `[ 1]`, `[1,]`, `[]`, `[1`, `[1,2`, `[-1]`, `[1.5]`, `[1e3]`,
		`[123456789012345678]`, `[1234567890123456789]`, `[18446744073709551615]`, `[18446744073709551616]`,
		`["a","b"]`, `["msg_01M8CWPCDJN5EHC10YTX"]`, `["a\"b"]`, `["a\\u0041"]`, `["é"]`, `["a" ,"b"]`,
		`["a",]`, `["a"`, `["a`, `[""]`, `["a"]]`, `[1,"a"]`, `["a",1]`,
	} {
		f.Add([]byte(seed))
	}
	seed := maphash.MakeSeed()
	hash := func(b []byte) uint64 { return maphash.Bytes(seed, b) }
	f.Fuzz(func(t *testing.T, b []byte) {
		sameAsGeneral(t, b, "uints", func(s *Scanner) ([]uint64, bool) { return s.plainUintArray() },
			func(s *Scanner) ([]uint64, error) {
				return readArray(s, "seqs", "an array of non-negative integers", &s.u64, &s.carve, func(i int) (uint64, error) {
					return s.ReadUint("seqs", i, ^uint64(0))
				})
			})
		sameAsGeneral(t, b, "hashes", func(s *Scanner) ([]uint64, bool) { return s.plainHashArray(hash) },
			func(s *Scanner) ([]uint64, error) {
				return readArray(s, "message_ids", "an array of strings", &s.u64, &s.carve, func(i int) (uint64, error) {
					v, err := s.ReadStr("message_ids", i)
					return hash(v), err
				})
			})
	})
}

func sameAsGeneral(t *testing.T, b []byte, what string, plain func(*Scanner) ([]uint64, bool), general func(*Scanner) ([]uint64, error)) {
	t.Helper()
	p := Scanner{b: b}
	got, ok := plain(&p)
	if !ok {
		if p.i != 0 {
			t.Fatalf("%s %q: refused, but moved to %d", what, b, p.i)
		}
		return
	}
	g := Scanner{b: b}
	want, err := general(&g)
	if err != nil {
		t.Fatalf("%s %q: the shortcut read %v, the general reader refuses: %v", what, b, got, err)
	}
	if !slices.Equal(got, want) || p.i != g.i {
		t.Fatalf("%s %q: the shortcut read %v up to %d, the general reader %v up to %d", what, b, got, p.i, want, g.i)
	}
}

// A sync's answer as the recorder writes it takes the shortcuts.
func TestPlainArraysTakeWhatTheRecorderWrites(t *testing.T) {
	u := Scanner{b: []byte(`[1,22,333]`)}
	if v, ok := u.plainUintArray(); !ok || !slices.Equal(v, []uint64{1, 22, 333}) {
		t.Fatalf("plainUintArray: %v, %v", v, ok)
	}
	h := Scanner{b: []byte(`["a","bc"]`)}
	if v, ok := h.plainHashArray(func(b []byte) uint64 { return uint64(len(b)) }); !ok || !slices.Equal(v, []uint64{1, 2}) {
		t.Fatalf("plainHashArray: %v, %v", v, ok)
	}
}
