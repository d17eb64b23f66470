// Package jsonambig finds what in a JSON text its readers may take two
// ways, so that a service's answer is refused rather than recorded as one
// reading of it while its own clients take the other.
package jsonambig

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// MaxDepth is how deeply Problem follows nested arrays and objects:
// encoding/json refuses deeper texts, and a deeper one is an answer no
// client reads alike either.
const MaxDepth = 10000

// Problem says what in b a reader may take two ways, or "" if nothing:
//   - an object that names a member twice (RFC 8259 §4 leaves which value
//     counts to the reader: encoding/json and JavaScript take the last,
//     fastjson the first), names compared as they decode, escapes and
//     invalid UTF-8 (each bad byte U+FFFD) and all;
//   - a string escaping half a UTF-16 surrogate pair (\ud800 alone):
//     encoding/json reads it as U+FFFD, JavaScript keeps it, so two ids
//     that differ there read as one to chatseq and as two to the clients;
//   - nesting deeper than MaxDepth.
//
// b is meant to be one JSON text; on anything else Problem looks for the
// same things and returns, never panics. One pass, memory bounded by the
// names of the objects open at a time.
func Problem(b []byte) string {
	var s scan
	return s.run(b)
}

// level is one open array or object; an object's names are kept while it
// is open.
type level struct {
	object    bool
	expectKey bool
	names     [][]byte // raw (undecoded) when plain
	set       map[string]struct{}
}

type scan struct {
	stack []level
	spare [][][]byte // names slices of closed levels, reused
}

// setAfter is how many names an object compares one by one before it
// keeps them in a map: a hostile object of a million members stays linear.
const setAfter = 16

func (s *scan) run(b []byte) string {
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{', '[':
			if len(s.stack) >= MaxDepth {
				return fmt.Sprintf("arrays or objects nested deeper than %d", MaxDepth)
			}
			var names [][]byte
			if n := len(s.spare); n > 0 {
				names, s.spare = s.spare[n-1][:0], s.spare[:n-1]
			}
			s.stack = append(s.stack, level{object: b[i] == '{', expectKey: b[i] == '{', names: names})
		case '}', ']':
			if n := len(s.stack); n > 0 {
				s.spare = append(s.spare, s.stack[n-1].names)
				s.stack = s.stack[:n-1]
			}
		case ',':
			if n := len(s.stack); n > 0 && s.stack[n-1].object {
				s.stack[n-1].expectKey = true
			}
		case ':':
			if n := len(s.stack); n > 0 {
				s.stack[n-1].expectKey = false
			}
		case '"':
			end, escaped, problem := readString(b, i+1)
			if problem != "" || end < 0 {
				return problem // a string cut short ends the text
			}
			if n := len(s.stack); n > 0 && s.stack[n-1].object && s.stack[n-1].expectKey {
				if dup, twice := s.stack[n-1].add(b[i:end], escaped); twice {
					return fmt.Sprintf("an object that names %s twice (readers differ on which value counts)", strconv.Quote(dup))
				}
			}
			i = end - 1
		}
	}
	return ""
}

// add records an object member's name (quoted, as it stands in the text)
// and returns it decoded, twice true, if the object named it before (the
// empty name is a name too).
func (l *level) add(quoted []byte, escaped bool) (name string, twice bool) {
	raw := quoted[1 : len(quoted)-1]
	if escaped || !utf8.Valid(raw) {
		// Decoded as readers decode it: invalid UTF-8 reads as U+FFFD,
		// so "\xf4" and "\xb7" are one name.
		var decoded string
		if json.Unmarshal(quoted, &decoded) != nil {
			return "", false // not a JSON string: the caller's parse refuses it
		}
		raw = []byte(decoded)
	}
	if l.set != nil {
		if _, ok := l.set[string(raw)]; ok {
			return string(raw), true
		}
		l.set[string(raw)] = struct{}{}
		return "", false
	}
	for _, n := range l.names {
		if string(n) == string(raw) {
			return string(raw), true
		}
	}
	l.names = append(l.names, raw)
	if len(l.names) > setAfter {
		l.set = make(map[string]struct{}, 2*setAfter)
		for _, n := range l.names {
			l.set[string(n)] = struct{}{}
		}
	}
	return "", false
}

// readString reads the string whose text starts at b[i] (after its
// opening quote): end is just past its closing quote (-1 if none),
// escaped whether it holds an escape.
func readString(b []byte, i int) (end int, escaped bool, problem string) {
	for i < len(b) {
		switch b[i] {
		case '"':
			return i + 1, escaped, ""
		case '\\':
			escaped = true
			if i+1 < len(b) && b[i+1] == 'u' {
				r, ok := hex4(b, i+2)
				switch {
				case !ok:
				case r >= 0xD800 && r <= 0xDBFF:
					low, ok := rune(0), false
					if i+7 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
						low, ok = hex4(b, i+8)
					}
					if !ok || low < 0xDC00 || low > 0xDFFF {
						return 0, false, fmt.Sprintf("a string escaping half a UTF-16 surrogate pair (\\u%04x alone: read as U+FFFD here, kept by other clients)", r)
					}
					i += 12
					continue
				case r >= 0xDC00 && r <= 0xDFFF:
					return 0, false, fmt.Sprintf("a string escaping half a UTF-16 surrogate pair (\\u%04x alone: read as U+FFFD here, kept by other clients)", r)
				}
				i += 6
				continue
			}
			i += 2
			continue
		}
		i++
	}
	return -1, escaped, ""
}

// hex4 reads four hex digits at b[i:].
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
