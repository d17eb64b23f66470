package jsonstr

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestAppendDecodesBackAndStaysValidUTF8(t *testing.T) {
	for _, s := range []string{"", "plain", `q"uote\back`, "\x00\x01\n\r\t\b\f\x1f", "é ü 中 🙂", "\u2028\u2029\u0085", "bad \xff utf8"} {
		b := Append(nil, s)
		if !utf8.Valid(b) {
			t.Fatalf("%q encoded to invalid UTF-8 %q", s, b)
		}
		var back string
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%q encoded to %s, not JSON: %v", s, b, err)
		}
		want := s
		if !utf8.ValidString(s) {
			want = "bad \ufffd utf8"
		}
		if back != want {
			t.Fatalf("%q came back as %q", s, back)
		}
	}
}
