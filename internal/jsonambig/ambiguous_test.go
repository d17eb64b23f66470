package jsonambig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
)

func TestProblem(t *testing.T) {
	for _, c := range []struct {
		text, want string
	}{
		{`{"a":1,"b":2}`, ""},
		{`{"a":{"a":1},"b":[{"a":1},{"a":2}]}`, ""}, // one name in several objects
		{`["a","a"]`, ""},
		{`{"a":"a","b":"a"}`, ""},
		{`{"s":"\ud83d\ude00 \u00e9 \\u0000"}`, ""}, // a pair, an escaped backslash
		{`{"a":1,"a":2}`, `an object that names "a" twice`},
		{`{"messages":[],"x":{"y":1},"messages":[1]}`, `names "messages" twice`},
		{`[{"id":"m1","sender_id":"u","content":"c","sender_id":"v"}]`, `names "sender_id" twice`},
		{`{"ab":1,"a\u0062":2}`, `names "ab" twice`}, // the same name, escaped
		{`{"ab":1,"a\\b":2}`, ""},                             // another name
		{`{"":1,"":2}`, `names "" twice`},                     // the empty name is a name
		{"{\"\xf4\":1,\"\xb7\":2}", "names \"\ufffd\" twice"}, // two invalid bytes, each read as U+FFFD
		{`{"":{"":1},"":[{"x":1,"x":2}]}`, `names "" twice`},
		{`{"id":"m\ud800"}`, `\ud800 alone`},
		{`{"id":"m\udc00"}`, `\udc00 alone`},
		{`{"id":"m\ud800\u0041"}`, `\ud800 alone`},
		{`{"id":"m\uD800"}`, `\ud800 alone`},
		{`{"\udfff":1}`, `\udfff alone`},
		{`{"id":"\ud800`, `\ud800 alone`}, // cut short
		{strings.Repeat("[", MaxDepth+1), "nested deeper"},
	} {
		got := Problem([]byte(c.text))
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.text, got, c.want)
		}
	}
}

// An object of many members stays linear: its names go to a set (a
// quadratic comparison of 200,000 names would not end within the test's
// timeout).
func TestManyNames(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := range 200_000 {
		fmt.Fprintf(&b, "%q:1,", "k"+strconv.Itoa(i))
	}
	whole := b.String() + `"last":2}`
	if got := Problem([]byte(whole)); got != "" {
		t.Fatalf("%q", got)
	}
	if got := Problem([]byte(b.String() + `"k7":2}`)); !strings.Contains(got, `"k7" twice`) {
		t.Fatalf("%q", got)
	}
}

// On any bytes Problem returns without a panic; on a JSON text it finds a
// name twice exactly where a walk of encoding/json's tokens does.
func FuzzProblem(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":"\ud800"}`, `[1,{"b":[{}]}]`, `"\`, `{"\u`, `{"a\u00":1}`, `{"a":{"a":1},"a\u0061":[{"x":1,"x":2}]}`, `{"":{"":1},"":[{"x":1,"x":2}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p := Problem(b)
		if !json.Valid(b) || strings.Contains(p, "surrogate") || strings.Contains(p, "nested") {
			return
		}
		dup, twice := tokenDuplicate(t, b)
		if (p != "") != twice || twice && !strings.Contains(p, strconv.Quote(dup)) {
			t.Fatalf("%q: Problem says %q, the token walk finds %q twice", b, p, dup)
		}
	})
}

// tokenDuplicate walks b's tokens and returns the first name an object
// gives twice, twice false if none.
func tokenDuplicate(t *testing.T, b []byte) (name string, twice bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // 1e700 is JSON, not a float64
	type open struct {
		object bool
		key    bool // the next string is a name
		names  map[string]bool
	}
	var stack []open
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return "", false
		}
		if err != nil {
			t.Fatalf("%q: %v", b, err)
		}
		top := len(stack) - 1
		isName := top >= 0 && stack[top].object && stack[top].key
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				if top >= 0 && stack[top].object {
					stack[top].key = true
				}
				stack = append(stack, open{object: v == '{', key: v == '{', names: map[string]bool{}})
				continue
			}
			stack = stack[:top]
			continue
		case string:
			if isName {
				if stack[top].names[v] {
					return v, true
				}
				stack[top].names[v] = true
				stack[top].key = false
				continue
			}
		}
		if top >= 0 && stack[top].object {
			stack[top].key = true
		}
	}
}
