package linearize

// SeqKeys maps sequences to keys (Chat.Owned). Where the sequences fill
// most of their span, as a chat's final lines do, it is an array over the
// span: a hot chat's million final lines went into a map twice (records,
// then messages), a tenth of a heavy-sync check's CPU; otherwise a map.
type SeqKeys struct {
	base  uint64
	dense []int32 // at seq-base, the key plus one; 0 where none is set
	m     map[uint64]int32
}

// NewSeqKeys returns a SeqKeys for up to n sequences, all within [lo, hi]
// (lo ≤ hi; any sequences, with n 0 and lo > hi).
func NewSeqKeys(lo, hi uint64, n int) *SeqKeys {
	if n > 0 && lo <= hi && hi-lo < uint64(4*n)+1024 {
		return &SeqKeys{base: lo, dense: make([]int32, hi-lo+1)}
	}
	return &SeqKeys{m: make(map[uint64]int32, n)}
}

// Set gives seq to key (≥ 0), replacing what seq had. seq must lie within
// the span NewSeqKeys was given when it is dense.
func (s *SeqKeys) Set(seq uint64, key int32) {
	if s.dense == nil {
		s.m[seq] = key
		return
	}
	s.dense[seq-s.base] = key + 1
}

// Get returns the key seq was given, if any. A nil SeqKeys holds none.
func (s *SeqKeys) Get(seq uint64) (key int32, held bool) {
	switch {
	case s == nil:
		return 0, false
	case s.dense == nil:
		key, held = s.m[seq]
		return key, held
	case seq < s.base || seq-s.base >= uint64(len(s.dense)):
		return 0, false
	}
	k := s.dense[seq-s.base]
	return k - 1, k != 0
}
