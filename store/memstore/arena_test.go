package memstore

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// Every blob reads back as written after many more were appended, across
// chunk boundaries, with empty fields, fields longer than a chunk, and
// bytes that are not UTF-8: strings read back point into chunks, so
// appending must never move or overwrite written bytes.
func TestArenaBlobsReadBackAsWritten(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var a arena
	var want [][]string
	var refs []blobRef
	var early []string // read back before the rest were written
	for i := range 20000 {
		fields := make([]string, 1+r.IntN(5))
		for j := range fields {
			switch r.IntN(10) {
			case 0:
				fields[j] = ""
			case 1:
				fields[j] = strings.Repeat("x", arenaChunkMax+r.IntN(1000))
			case 2:
				fields[j] = string([]byte{0xff, 0, byte(i), 0x80})
			default:
				fields[j] = strings.Repeat("é", r.IntN(200))
			}
		}
		refs = append(refs, a.put(fields))
		want = append(want, fields)
		if i == 10 {
			got := make([]string, len(fields))
			a.fields(refs[i], got)
			early = got
		}
	}
	for i, ref := range refs {
		got := make([]string, len(want[i]))
		a.fields(ref, got)
		for j := range got {
			if got[j] != want[i][j] {
				t.Fatalf("blob %d field %d: %d bytes %.20q, want %d bytes %.20q", i, j, len(got[j]), got[j], len(want[i][j]), want[i][j])
			}
		}
		if a.first(ref) != want[i][0] {
			t.Fatalf("blob %d: first field %.20q, want %.20q", i, a.first(ref), want[i][0])
		}
	}
	for j := range early {
		if early[j] != want[10][j] {
			t.Fatalf("a string read early changed after later writes: field %d is %.20q, want %.20q", j, early[j], want[10][j])
		}
	}
	if len(a.chunks) < 10 {
		t.Fatalf("%d chunks for 20000 blobs: the test did not cross chunk boundaries", len(a.chunks))
	}
}

// A store of many small chats does not reserve a full chunk for each.
func TestArenaStartsSmall(t *testing.T) {
	var a arena
	a.put([]string{"k", "msg_01", "user-1", "c0cf94ed3fcce1e0"})
	if c := cap(a.chunks[0]); c > arenaChunkFirst {
		t.Fatalf("first chunk holds %d bytes, want at most %d", c, arenaChunkFirst)
	}
}
