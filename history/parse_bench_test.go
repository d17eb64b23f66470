package history

import (
	"bytes"
	"testing"
)

// BenchmarkDecodeLines parses a recorded history's event and final lines
// one by one, as a parse worker does: decoding, the shape check and the
// strings the builder keeps.
func BenchmarkDecodeLines(b *testing.B) {
	var buf bytes.Buffer
	if err := generateHistory(&buf, 2000, 16); err != nil {
		b.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))[1:] // the header aside
	var total int64
	for _, l := range lines {
		total += int64(len(l)) + 1
	}
	d := newLineDecoder("bench.jsonl", nil)
	var pl parsedLine
	b.SetBytes(total)
	for b.Loop() {
		for i, l := range lines {
			if err := d.parse(l, i+2, &pl); err != nil {
				b.Fatal(err)
			}
		}
	}
}
