package store

import (
	"fmt"
	"iter"
)

// What the Index tells of the final lines by key.

// IsRunsLine reports whether f is a final message or idempotency record
// above initial_counter: a line the run may have written (those at or
// below it are from before the run).
func (x *Index) IsRunsLine(f *FinalRecord) bool {
	return (f.Table == TableMessages || f.Table == TableIdempotency) && f.Seq > x.InitialCounter
}

// RunsLines is the final lines IsRunsLine holds, with their index in Fin.
func (x *Index) RunsLines() iter.Seq2[int32, *FinalRecord] {
	return func(yield func(int32, *FinalRecord) bool) {
		for i := range x.Fin.Count() {
			if f := x.Fin.At(i); x.IsRunsLine(f) && !yield(i, f) {
				return
			}
		}
	}
}

// KeyedFinals counts the final messages and idempotency records above
// initial_counter with a key, and those without one that can be
// attributed (no key, or under key_scope client a key several senders
// used).
func (x *Index) KeyedFinals() (keyed, keyless int) {
	for _, f := range x.RunsLines() {
		if f.Key == FinKeyless {
			keyless++
		} else {
			keyed++ // a key no persist used (finKeyUnsent) is no failed key
		}
	}
	return keyed, keyless
}

// LaterFinalOfKey is a final message or idempotency record of key k above
// initial_counter (a message first), -1 if none.
func (x *Index) LaterFinalOfKey(k int32) int32 {
	second := func(m map[int32]int32) int32 {
		if f, ok := m[k]; ok {
			return f
		}
		return -1
	}
	for _, f := range []int32{x.KeyMsg[k], second(x.KeyMsg2), x.KeyIdem[k], second(x.KeyIdem2)} {
		if f >= 0 && x.Fin.At(f).Seq > x.InitialCounter {
			return f
		}
	}
	return -1
}

// KeyedRecords counts the final idempotency records with a key.
func (x *Index) KeyedRecords() int {
	n := 0
	for _, r := range x.KeyIdem {
		if r >= 0 {
			n++
		}
	}
	return n
}

// ReadEmptyNote says, for a detail, that table t was read and is empty.
func (x *Index) ReadEmptyNote(t TableKind) string {
	if x.ReadEmpty[t] {
		return fmt.Sprintf(" (the final %s table was read and is empty)", t)
	}
	return ""
}
