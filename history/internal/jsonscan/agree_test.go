package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// FuzzAgreesWithEncodingJSON compares the scanner with encoding/json. On
// syntax: what CheckSyntax accepts, json.Valid accepts; what it refuses
// and json.Valid accepts is one of its documented strictnesses (invalid
// UTF-8 in a string, an unpaired UTF-16 surrogate, nesting deeper than
// MaxDepth). On values: whatever both read as a string, an integer, a bool
// or an array of integers or strings, they read alike, up to the same
// byte (the whole input).
func FuzzAgreesWithEncodingJSON(f *testing.F) {
	for _, seed := range []string{
		`"abc"`, `"a\"b\\c\/d"`, `"\b\f\n\r\t"`, `["\t","\n"]`, `"\u0041\u00e9\ud83d\ude00"`, `"\ud800"`, `"\ud800\u0041"`, `"\x"`, "\"\xff\"", "\"é\"",
		"\"\t\"", `""`, `0`, `-0`, `1`, `-1`, `18446744073709551615`, `18446744073709551616`, `9223372036854775807`,
		`-9223372036854775808`, `-9223372036854775809`, `1.0`, `1e3`, `01`, `-`, `true`, `false`, `null`, `tru`,
		`[1,2,3]`, `[ 1 , 2 ]`, `[]`, `[1,]`, `["a","b"]`, `["a",1]`, `{"a":[1,{"b":null}]}`, `{"a":1,}`, ` 7 `,
		"\t[\r\n]\n", `[[[[[]]]]]`, strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		agreeOnSyntax(t, data)
		trimmed := bytes.TrimLeft(data, " \t\r\n")
		agree(t, trimmed, "a string", func(s *Scanner) (string, error) {
			v, err := s.ReadStr("v", -1)
			return string(v), err
		})
		agree(t, trimmed, "an unsigned integer", func(s *Scanner) (uint64, error) { return s.ReadUint("v", -1, math.MaxUint64) })
		agree(t, trimmed, "an integer", func(s *Scanner) (int64, error) { return s.ReadInt("v") })
		agree(t, trimmed, "a bool", func(s *Scanner) (bool, error) { return s.ReadBool("v") })
		agree(t, trimmed, "an array of integers", func(s *Scanner) ([]uint64, error) { return s.ReadUintArray("v") })
		agree(t, trimmed, "an array of strings", func(s *Scanner) ([]string, error) {
			return s.ReadStringArray("v", func(b []byte) string { return string(b) })
		})
	})
}

func agreeOnSyntax(t *testing.T, data []byte) {
	err := CheckSyntax(data)
	valid := json.Valid(data)
	switch {
	case err == nil && !valid:
		t.Fatalf("%q: CheckSyntax accepts what encoding/json refuses", data)
	case err != nil && valid:
		var e *Error
		if !errors.As(err, &e) || e.Col < 1 {
			t.Fatalf("%q: not a syntax error at a column: %v", data, err)
		}
		strict := []string{"invalid UTF-8 in string", "unpaired UTF-16 surrogate", "nested too deeply"}
		if !slices.ContainsFunc(strict, func(s string) bool { return strings.Contains(e.Msg, s) }) {
			t.Fatalf("%q: encoding/json accepts it, CheckSyntax refuses it for another reason than its strictness: %v", data, err)
		}
	}
}

// agree reads data with read and with json.Unmarshal into a T: where both
// take the whole input, they must give equal values. (The scanner reads
// one value and leaves what follows to its caller, so a prefix it reads
// is compared only when nothing but whitespace follows.)
func agree[T any](t *testing.T, data []byte, what string, read func(*Scanner) (T, error)) {
	var s Scanner
	s.Reset(data)
	got, err := read(&s)
	if err != nil {
		return
	}
	s.SkipWS()
	if !s.AtEnd() {
		return
	}
	var want T
	if json.Unmarshal(data, &want) != nil {
		return
	}
	if !equal(got, want) {
		t.Fatalf("%q read as %s: the scanner gives %#v, encoding/json %#v", data, what, got, want)
	}
}

func equal[T any](a, b T) bool {
	// A nil and an empty slice are one array to the reader; DeepEqual-like
	// comparison through JSON keeps the test about values.
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	if bytes.Equal(x, []byte("null")) {
		x = []byte("[]")
	}
	if bytes.Equal(y, []byte("null")) {
		y = []byte("[]")
	}
	return bytes.Equal(x, y)
}
