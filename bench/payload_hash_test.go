package bench

import (
	"strconv"
	"testing"

	"github.com/chatseq/chatseq/target"
)

// A planned message's hash is computed with its content, in one
// allocation; it must be the content's payloadHash.
func TestMessageContentCarriesItsPayloadHash(t *testing.T) {
	for _, c := range []struct{ writer, op int }{{0, 0}, {7, 123456}, {63, 1 << 40}} {
		content, hash := messageContent(c.writer, c.op)
		if want := contentPrefix + "w" + strconv.Itoa(c.writer) + "-m" + strconv.Itoa(c.op); content != want {
			t.Fatalf("content %q, want %q", content, want)
		}
		if want := target.PayloadHash(content); hash != want {
			t.Fatalf("%q: hash %s, want %s", content, hash, want)
		}
	}
}

// Contents cut from one slab stay as they were cut while later ones fill
// its blocks: each equals the content made on its own.
func TestSlabContentsStayIntact(t *testing.T) {
	var s stringSlab
	type cut struct{ content, hash string }
	var cuts []cut
	for op := range 5000 {
		c, h := s.messageContent(op%7, op)
		cuts = append(cuts, cut{c, h})
	}
	for op, got := range cuts {
		c, h := messageContent(op%7, op)
		if got.content != c || got.hash != h {
			t.Fatalf("op %d: cut %q %q, want %q %q", op, got.content, got.hash, c, h)
		}
	}
}
