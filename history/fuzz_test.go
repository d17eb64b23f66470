package history

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history/internal/jsonscan"
)

// FuzzRead checks that Read never panics, that its errors name a real line,
// and that whatever it accepts survives a rewrite by the recorder's encoders:
// read, encode, read again gives the same history, and encoding that gives
// the same bytes.
func FuzzRead(f *testing.F) {
	seeds, err := filepath.Glob("testdata/*.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	for _, path := range seeds {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, tt := range malformed {
		f.Add([]byte(tt.input))
	}
	for _, tt := range malformedReceivers {
		f.Add([]byte(tt.input))
	}
	var recorded bytes.Buffer
	if err := generateHistory(&recorded, 40, 4); err != nil {
		f.Fatal(err)
	}
	f.Add(recorded.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := Read(bytes.NewReader(data), "fuzz.jsonl")
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			if pe.Line < 1 || pe.Line > bytes.Count(data, []byte{'\n'})+1 {
				t.Fatalf("error names line %d of a %d-line input: %v", pe.Line, bytes.Count(data, []byte{'\n'})+1, err)
			}
			return
		}
		encoded := encodeHistory(t, h)
		again, err := Read(bytes.NewReader(encoded), "again.jsonl")
		if err != nil {
			t.Fatalf("the re-encoded history does not read: %v\n%s", err, encoded)
		}
		// Only a history cut short stays so, and says so again: its end
		// line missing, or a table holding another count of lines than
		// its table_read line promised (fewer: cut short; more: not the
		// table read).
		for _, w := range again.Warnings {
			endCut := h.EndLineMissing() && strings.Contains(w.Message, "the header promises an end line")
			tableCut := len(h.ShortTables()) > 0 &&
				(strings.Contains(w.Message, "the table was cut short") || strings.Contains(w.Message, "the table is not the one read"))
			if !endCut && !tableCut {
				t.Fatalf("the re-encoded history has warnings: %+v", again.Warnings)
			}
		}
		if len(again.ShortTables()) != len(h.ShortTables()) {
			t.Fatalf("tables cut short %+v; re-encoded: %+v", h.ShortTables(), again.ShortTables())
		}
		// (A line the file ended inside of is not written again.)
		if again.EndLineMissing() != h.EndLineMissing() || (again.End > 0) != (h.End > 0) {
			t.Fatalf("end line missing %v, end line %d; re-encoded: %v, %d", h.EndLineMissing(), h.End, again.EndLineMissing(), again.End)
		}
		sameContent(t, h, again)
		if twice := encodeHistory(t, again); !bytes.Equal(twice, encoded) {
			t.Fatalf("encoding is not stable:\n%s\n%s", encoded, twice)
		}
	})
}

// FuzzStringRoundTrip checks the string encoder against the scanner: any Go
// string reads back as itself, with each invalid UTF-8 byte as U+FFFD.
func FuzzStringRoundTrip(f *testing.F) {
	for _, s := range oddStrings {
		f.Add(s)
	}
	f.Add("\xff\xfe\xed\xa0\x80")
	f.Fuzz(func(t *testing.T, s string) {
		encoded := appendString(nil, s)
		if err := jsonscan.CheckSyntax(encoded); err != nil {
			t.Fatalf("%q encodes as invalid JSON %s: %v", s, encoded, err)
		}
		var sc jsonscan.Scanner
		sc.Reset(encoded)
		decoded, err := sc.ReadString()
		if err != nil || !sc.AtEnd() {
			t.Fatalf("%q: reading %s back: %v (stopped at %d)", s, encoded, err, sc.Pos())
		}
		if want := string([]rune(s)); string(decoded) != want {
			t.Fatalf("%q encodes as %s, which reads back as %q", s, encoded, decoded)
		}
	})
}
