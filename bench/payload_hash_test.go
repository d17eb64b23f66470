package bench

import (
	"hash/fnv"
	"strconv"
	"testing"
)

// Histories record payload_hash; it must stay FNV-1a so runs compare.
func TestPayloadHashIsFNV1a(t *testing.T) {
	for _, s := range []string{"", "message w1-m2", "é"} {
		h := fnv.New64a()
		h.Write([]byte(s))
		if got, want := payloadHash(s), strconv.FormatUint(h.Sum64(), 16); got != want {
			t.Fatalf("%q: %s, want %s", s, got, want)
		}
	}
}

// A planned message's hash is computed with its content, in one
// allocation; it must be the content's payloadHash.
func TestMessageContentCarriesItsPayloadHash(t *testing.T) {
	for _, c := range []struct{ writer, op int }{{0, 0}, {7, 123456}, {63, 1 << 40}} {
		content, hash := messageContent(c.writer, c.op)
		if want := contentPrefix + "w" + strconv.Itoa(c.writer) + "-m" + strconv.Itoa(c.op); content != want {
			t.Fatalf("content %q, want %q", content, want)
		}
		if want := payloadHash(content); hash != want {
			t.Fatalf("%q: hash %s, want %s", content, hash, want)
		}
	}
}

// appendHex writes what strconv does, at every digit count.
func TestAppendHexAgreesWithStrconv(t *testing.T) {
	vs := []uint64{0, 1, 0xf, 0x10, 0xff, 0x100, 1<<63 - 1, 1 << 63, ^uint64(0)}
	for shift := range 64 {
		vs = append(vs, 1<<shift, 1<<shift-1, 0x9e3779b97f4a7c15>>shift)
	}
	for _, v := range vs {
		if got, want := string(appendHex([]byte("x"), v)), "x"+strconv.FormatUint(v, 16); got != want {
			t.Fatalf("%#x: %q, want %q", v, got, want)
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
