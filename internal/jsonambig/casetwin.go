package jsonambig

import (
	"fmt"
	"strings"
)

// CaseTwin describes key, a member's name as it decodes, when it is name
// but for case ("Sequence" for "sequence", "ſequence" by Unicode's
// folding), and is "" otherwise. A client that matches names regardless
// of case, as Go's encoding/json does into a struct, reads such a member
// for name (the later of the two where both are given), while exact
// readers (JavaScript, fastjson) read name alone: an answer naming one is
// read two ways, where an API names its members exactly.
func CaseTwin(key, name string) string {
	if key == name || !strings.EqualFold(key, name) {
		return ""
	}
	return fmt.Sprintf("a member %q, which a client matching names regardless of case (Go's encoding/json) reads for the API's %q", key, name)
}

// PlainlyNoTwin says, without decoding, that raw, a member's name as its
// bytes stand (escapes undecoded), is no CaseTwin of name: it is name
// byte for byte (without an escape, it decodes to itself), or both are
// plain ASCII (ASCII folds only within ASCII, byte for byte) and differ
// other than by case. False when that takes decoding or they fold alike;
// it spares the hot paths (a send's answer, a push frame) a string a
// member.
func PlainlyNoTwin(raw []byte, name string) bool {
	if string(raw) == name {
		return plainASCII(raw) // else an escape or a byte that decodes otherwise
	}
	if len(raw) != len(name) {
		return plainASCII(raw) && plainASCIIString(name)
	}
	for i := range len(raw) {
		c, d := raw[i], name[i]
		if c >= 0x80 || d >= 0x80 || c == '\\' {
			return false
		}
		if c != d && lowerASCII(c) != lowerASCII(d) {
			return true
		}
	}
	return false
}

func plainASCIIString(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 || s[i] == '\\' {
			return false
		}
	}
	return true
}

func plainASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 || c == '\\' {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
