// Package termsafe keeps what a service answered from steering a
// terminal: a message id, a key or an error code is a service's to
// choose, and printed as it came, an escape sequence in it clears the
// screen or retitles the window, and a newline in it prints a line of
// its own ("verdict: PASS") that a CI job grepping the output takes for
// chatseq's.
package termsafe

import (
	"io"
	"strconv"
	"strings"
)

// Name is s as a line of text shows it: as it is when Plain, quoted as
// Go quotes a string otherwise.
func Name(s string) string {
	if Plain(s) {
		return s
	}
	return strconv.Quote(s)
}

// Plain says whether s is a name a line can show as it is: not empty,
// every byte printable ASCII other than a space, a quote or a backslash
// (the names a service normally gives).
func Plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return s != ""
}

// Text is s as Writer writes it.
func Text(s string) string {
	var b strings.Builder
	w := writer{w: &b}
	w.Write([]byte(s))
	if w.lead {
		b.WriteString(`\u00c2`) // a C1 control's first byte, cut
	}
	return b.String()
}

// Writer is w with every control character but a newline and a tab
// written as its escape, \u001b for ESC, the C1 controls (U+0080 to
// U+009F, which some terminals obey as ESC sequences) included: a
// report's own text holds none, so only what a service put in it is
// changed. The escape is JSON's, so inside a JSON string (which
// encoding/json leaves DEL and the C1 controls raw in) it means the same
// character.
func Writer(w io.Writer) io.Writer { return &writer{w: w} }

type writer struct {
	w io.Writer
	// lead: the previous write ended in 0xC2, the first byte of a C1
	// control's UTF-8 form, not yet written.
	lead bool
	buf  []byte
}

// Fd is the descriptor of the file written to, so that what is written
// is still fitted to a terminal's width; an impossible one when it
// writes elsewhere.
func (t *writer) Fd() uintptr {
	if f, ok := t.w.(interface{ Fd() uintptr }); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}

func (t *writer) Write(p []byte) (int, error) {
	t.buf = t.buf[:0]
	start := 0
	if t.lead {
		t.lead = false
		if len(p) > 0 && p[0] >= 0x80 && p[0] <= 0x9f {
			t.buf = appendEscape(t.buf, p[0])
			start = 1
		} else {
			t.buf = append(t.buf, 0xc2)
		}
	}
	for i := start; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\n' || c == '\t':
			t.buf = append(t.buf, c)
		case c < 0x20 || c == 0x7f:
			t.buf = appendEscape(t.buf, c)
		case c == 0xc2 && i+1 == len(p):
			t.lead = true
		case c == 0xc2 && p[i+1] >= 0x80 && p[i+1] <= 0x9f:
			t.buf = appendEscape(t.buf, p[i+1])
			i++
		default:
			t.buf = append(t.buf, c)
		}
	}
	if _, err := t.w.Write(t.buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

// appendEscape appends \u00XX for the character c.
func appendEscape(b []byte, c byte) []byte {
	const hex = "0123456789abcdef"
	return append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
}
