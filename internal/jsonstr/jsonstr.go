// Package jsonstr encodes JSON strings by appending bytes, without
// reflection: the history recorder and the Kafka event encoder both sit on
// the hot path of every persist.
package jsonstr

import (
	"math/bits"
	"unicode/utf8"
)

// PlainASCII marks the bytes a JSON string may hold unescaped: printable ASCII
// other than '"' and '\\'. It has 256 entries so any byte can index it.
var PlainASCII = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// SWAR constants: a byte of ones, and a byte of high bits, in every lane.
const (
	lanes = 0x0101010101010101
	highs = 0x8080808080808080
)

// PlainPrefix is how many leading bytes of s need no escaping: printable
// ASCII other than '"' and '\\'. It looks at eight bytes at a time
// (identifiers, keys and ids are all plain) and finds the first special
// byte of a word from its mask, not byte by byte: a history's strings are
// short, and most end inside their first or second word.
func PlainPrefix[S ~string | ~[]byte](s S) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if m := specialLanes(x); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(s) && PlainASCII[s[i]] {
		i++
	}
	return i
}

// specialLanes has the high bit of each byte of x that is below 0x20, '"',
// '\\' or not ASCII set, and maybe of bytes above the first such one (a
// borrow runs upward), never below it: its lowest set bit marks the first
// special byte exactly.
func specialLanes(x uint64) uint64 {
	below := (x - 0x20*lanes) &^ x
	quote := x ^ ('"' * lanes)
	slash := x ^ ('\\' * lanes)
	return (below | (quote-lanes)&^quote | (slash-lanes)&^slash | x) & highs
}

// Append appends s as a JSON string. Beyond what JSON requires, it
// escapes U+0085, U+2028 and U+2029, which some line-oriented tools treat as
// line breaks, and writes invalid UTF-8 as U+FFFD so the output is always
// valid UTF-8.
func Append(b []byte, s string) []byte { return appendFrom(b, s, PlainPrefix(s)) }

// AppendPlain is Append, and reports whether s was all plain ASCII: copied
// as it is, so valid UTF-8 with nothing escaped.
func AppendPlain(b []byte, s string) ([]byte, bool) {
	if i := PlainPrefix(s); i < len(s) {
		return appendFrom(b, s, i), false
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"'), true
}

// appendFrom is Append for an s whose first plain bytes need no look.
func appendFrom(b []byte, s string, plain int) []byte {
	b = append(b, '"')
	run := 0 // start of the bytes not yet copied
	for i := plain; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if PlainASCII[c] {
				i++
				continue
			}
			b = append(b, s[run:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			run = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[run:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u0085' || r == '\u2028' || r == '\u2029':
			b = append(b, s[run:i]...)
			b = append(b, '\\', 'u')
			b = append(b, hexDigits[r>>12], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		run = i
	}
	b = append(b, s[run:]...)
	return append(b, '"')
}
