package store

import (
	"testing"
	"unsafe"
)

// The Log holds one op per operation and one FinalRecord per final line: a
// history's bulk. Their sizes are what a million-operation check costs, so
// a field added carelessly shows here first.
func TestRecordSizes(t *testing.T) {
	if got := unsafe.Sizeof(Op{}); got != 64 {
		t.Errorf("op takes %d bytes, want 64", got)
	}
	if got := unsafe.Sizeof(FinalRecord{}); got != 32 {
		t.Errorf("FinalRecord takes %d bytes, want 32", got)
	}
}
