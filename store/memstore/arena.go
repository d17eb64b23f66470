package memstore

import (
	"encoding/binary"
	"unsafe"
)

// arena keeps the strings of one table's items back to back in chunks of
// bytes, each item's strings as one blob of length-prefixed fields, and an
// item holds only where its blob starts. A run keeps every message and key
// it wrote, so this is most of the store's memory: the garbage collector
// never scans it (no pointers), a walk over a table reads memory in the
// order it was written instead of chasing a pointer per string, and the
// request's own strings die young.
//
// A chunk's written bytes never change, so strings read back point into
// it rather than copying (and keep it alive). An overwritten item's old
// blob stays behind, unreachable: overwrites are rare (broken variants,
// unconditional puts) and the store never deletes messages or keys.
type arena struct {
	chunks [][]byte
}

// blobRef is where a blob starts: its chunk's index << 32 | its offset.
type blobRef uint64

const (
	// A table's first chunk is small (a store may hold many chats with few
	// messages each); each next one doubles, up to arenaChunkMax.
	arenaChunkFirst = 256
	arenaChunkMax   = 64 << 10
)

// put appends fields as one blob and returns where it starts.
func (a *arena) put(fields []string) blobRef {
	size := 0
	for _, f := range fields {
		size += uvarintLen(uint64(len(f))) + len(f)
	}
	n := len(a.chunks)
	if n == 0 || cap(a.chunks[n-1])-len(a.chunks[n-1]) < size {
		next := arenaChunkFirst
		if n > 0 {
			next = min(2*cap(a.chunks[n-1]), arenaChunkMax)
		}
		a.chunks = append(a.chunks, make([]byte, 0, max(next, size)))
		n++
	}
	chunk := a.chunks[n-1]
	ref := blobRef(uint64(n-1)<<32 | uint64(len(chunk)))
	for _, f := range fields {
		chunk = binary.AppendUvarint(chunk, uint64(len(f)))
		chunk = append(chunk, f...)
	}
	a.chunks[n-1] = chunk
	return ref
}

// fields reads the blob at ref into out, which must be as long as the
// blob's field count (or shorter: its first fields).
func (a *arena) fields(ref blobRef, out []string) {
	chunk := a.chunks[ref>>32]
	at := int(uint32(ref))
	for i := range out {
		n, w := binary.Uvarint(chunk[at:])
		at += w
		out[i] = ""
		if n > 0 {
			out[i] = unsafe.String(&chunk[at], int(n))
		}
		at += int(n)
	}
}

// first is the blob's first field.
func (a *arena) first(ref blobRef) string {
	var f [1]string
	a.fields(ref, f[:])
	return f[0]
}

func uvarintLen(v uint64) int {
	n := 1
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}
