//go:build !race

// Not under the race detector: these reads are one goroutine's scan of
// hundreds of megabytes, which it slows fifteenfold (45 s) and can find
// nothing in; test.sh runs the package without it first.

package history

import (
	"io"
	"strings"
	"testing"
)

// A line longer than MaxLineBytes is refused once that much is read,
// wherever it stands, with its line number (and its own syntax error when
// its start has one).
func TestReadRefusesALineLongerThanTheMost(t *testing.T) {
	const tooLong = "h.jsonl:2: the line is longer than 64 MiB, the most a history line may have"
	for _, c := range []struct {
		name, start string
		fill        byte
		want        string
	}{
		{"a chat id with no end", `{"type":"invoke","process":1,"f":"persist","time":1,"chat":"`, 'c', tooLong},
		{"garbage", "", 0,
			"h.jsonl:2: invalid JSON at column 1: unexpected byte 0x00, expected a value (and the line is longer than 64 MiB, the most a history line may have)"},
	} {
		in := &countingReader{r: io.MultiReader(strings.NewReader(testHeader+"\n"+c.start), &repeatReader{c: c.fill, n: 1 << 30})}
		_, err := Read(in, "h.jsonl")
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		if in.n > MaxLineBytes+8*readBufferSize {
			t.Errorf("%s: read %d bytes, want the read to stop soon after %d", c.name, in.n, MaxLineBytes)
		}
	}
	// A line of exactly MaxLineBytes is read (JSON whitespace pads it),
	// and one byte more is refused.
	invoke := `{"type":"invoke","process":1,"f":"persist","time":1,"chat":"c","key":"k"}`
	padded := strings.Replace(invoke, `"key"`, strings.Repeat(" ", MaxLineBytes-len(invoke))+`"key"`, 1)
	if h := mustRead(t, lines(testHeader, padded)); len(h.Events) != 1 || h.Events[0].Key != "k" {
		t.Fatalf("a line of exactly %d bytes: %+v", MaxLineBytes, h.Events)
	}
	_, err := Read(strings.NewReader(lines(testHeader, " "+padded)), "h.jsonl")
	if err == nil || err.Error() != tooLong {
		t.Fatalf("a line of %d bytes: %v, want %q", MaxLineBytes+1, err, tooLong)
	}
}
