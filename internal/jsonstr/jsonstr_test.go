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

// The eight-bytes-at-a-time scan stops exactly at the first byte that
// needs escaping, wherever it sits, whatever it is and whatever special
// byte follows it in its word (a borrow runs upward from it), in a string
// and in bytes alike; so Append encodes exactly as the byte-by-byte loop.
func TestPlainPrefixStopsAtTheFirstByteThatNeedsEscaping(t *testing.T) {
	firstSpecial := func(s string) int {
		for i := 0; i < len(s); i++ {
			if !PlainASCII[s[i]] {
				return i
			}
		}
		return len(s)
	}
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 20; pos++ {
			for _, after := range []int{-1, 0x00, 0x1f, '"', '\\', 0x80, 0xff} {
				buf := []byte("abcdefghijklmnopqrstu")
				buf[pos] = byte(c)
				if after >= 0 && pos+1 < len(buf) {
					buf[pos+1] = byte(after)
				}
				s := string(buf)
				want := firstSpecial(s)
				if n := PlainPrefix(s); n != want {
					t.Fatalf("%q: PlainPrefix %d, the first byte to escape is at %d", s, n, want)
				}
				if n := PlainPrefix(buf); n != want {
					t.Fatalf("%q as bytes: PlainPrefix %d, the first byte to escape is at %d", s, n, want)
				}
				if got, want := string(Append(nil, s)), string(appendFrom(nil, s, 0)); got != want {
					t.Fatalf("byte %#x at %d: %s, the byte loop gives %s", c, pos, got, want)
				}
			}
		}
	}
	if n := PlainPrefix("msg_01M82KADEA4B873NQEB72YM5FV"); n != 30 {
		t.Fatalf("a plain 30-byte id: prefix %d, want 30", n)
	}
}

// AppendPlain encodes as Append does, and says plain exactly when every
// byte of s is plain ASCII, wherever the first that is not sits.
func TestAppendPlainSaysWhetherEveryByteWasPlain(t *testing.T) {
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 20; pos++ {
			buf := []byte("abcdefghijklmnopqrst")
			buf[pos] = byte(c)
			checkAppendPlain(t, string(buf))
		}
	}
	for _, s := range []string{"", "a", "é", "bad \xff", "\u2028"} {
		checkAppendPlain(t, s)
	}
}

func checkAppendPlain(t *testing.T, s string) {
	t.Helper()
	got, plain := AppendPlain([]byte("x"), s)
	if want := Append([]byte("x"), s); string(got) != string(want) {
		t.Fatalf("%q: AppendPlain gives %s, Append %s", s, got, want)
	}
	want := true
	for i := 0; i < len(s); i++ {
		want = want && PlainASCII[s[i]]
	}
	if plain != want {
		t.Fatalf("%q: plain %v, want %v", s, plain, want)
	}
}

// FuzzAppend: any string encodes as the byte loop encodes it, to valid
// UTF-8 JSON.
func FuzzAppend(f *testing.F) {
	for _, s := range []string{"", "plain-ascii-identifier", "tab\there", "\"quoted\"", "é\u2028\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Append(nil, s)
		if want := appendFrom(nil, s, 0); string(got) != string(want) {
			t.Fatalf("%q: %s, the byte loop gives %s", s, got, want)
		}
		checkAppendPlain(t, s)
		var back string
		if !utf8.Valid(got) || json.Unmarshal(got, &back) != nil {
			t.Fatalf("%q encoded to %q: not valid JSON", s, got)
		}
	})
}
