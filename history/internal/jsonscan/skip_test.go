package jsonscan

import (
	"fmt"
	"strings"
	"testing"
)

// SkipValue refuses a field name given twice in any object it passes,
// however deep, escaped or not, in a small object or a large one (kept in
// a map past 16 names); CheckSyntax, a syntax check as encoding/json's,
// takes it.
func TestSkipValueRefusesAFieldNameGivenTwice(t *testing.T) {
	many := func(dup bool) string {
		var b strings.Builder
		b.WriteString("{")
		for i := range 100 {
			fmt.Fprintf(&b, `"f%d":%d,`, i, i)
		}
		if dup {
			b.WriteString(`"f57":0,`)
		}
		b.WriteString(`"last":[{"a":1},{"a":2}]}`)
		return b.String()
	}
	for _, c := range []struct {
		value string
		dup   string // the name refused, "" when taken
	}{
		{`{"a":1,"b":{"a":2},"c":[{"a":3}]}`, ""},
		{`{"a":1,"a":2}`, "a"},
		{`{"a":{"b":[{"c":1,"d":2,"c":3}]}}`, "c"},
		{`{"a":1,"\u0061":2}`, "a"},
		{many(false), ""},
		{many(true), "f57"},
	} {
		var s Scanner
		s.Reset([]byte(c.value))
		err := s.SkipValue()
		switch {
		case c.dup == "" && err != nil:
			t.Errorf("%.60s: %v", c.value, err)
		case c.dup != "" && (err == nil || !strings.Contains(err.Error(), `duplicate field "`+c.dup+`"`)):
			t.Errorf("%.60s: %v, want the field %q named twice", c.value, err, c.dup)
		}
		if err := CheckSyntax([]byte(c.value)); err != nil {
			t.Errorf("%.60s: CheckSyntax refuses valid JSON: %v", c.value, err)
		}
		if err := CheckValue([]byte(c.value)); (err == nil) != (c.dup == "") {
			t.Errorf("%.60s: CheckValue %v", c.value, err)
		}
	}
}
