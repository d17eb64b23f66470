package columns

import "encoding/binary"

// A sync's sequences are kept delta-coded: each as the varint of its
// distance from the one before, less one, zigzagged. A well-formed answer
// ascends by one but for gaps, so a sequence takes one byte where it took
// eight: sync answers were a quarter of a 5M-persist check's memory. Any
// list of uint64, unordered or repeated, codes and decodes exactly
// (differences wrap), so a malformed answer reads back as it was written.

// appendSeqs appends seqs, coded, to dst.
func AppendSeqs(dst []byte, seqs []uint64) []byte {
	prev := uint64(0)
	for i, s := range seqs {
		d := s - prev - 1
		if i == 0 {
			d = s
		}
		dst = binary.AppendUvarint(dst, zigzag(int64(d)))
		prev = s
	}
	return dst
}

// decodeSeqs appends the sequences coded in b to dst.
func DecodeSeqs(dst []uint64, b []byte) []uint64 {
	prev := uint64(0)
	for i := 0; len(b) > 0; i++ {
		var u uint64
		if b[0] < 0x80 { // one byte: nearly every sequence of an ascending page
			u, b = uint64(b[0]), b[1:]
		} else {
			var n int
			u, n = binary.Uvarint(b)
			b = b[n:]
		}
		s := uint64(unzigzag(u))
		if i > 0 {
			s += prev + 1
		}
		dst = append(dst, s)
		prev = s
	}
	return dst
}

// countSeqs is how many sequences b codes: a varint's last byte is below
// 0x80.
func CountSeqs(b []byte) int {
	n := 0
	for _, c := range b {
		if c < 0x80 {
			n++
		}
	}
	return n
}

func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }
