package store

import "math"

// KeyOps returns key k's persist operations in invoke order.
func (x *Index) KeyOps(k int32) []int32 {
	lo, hi := Span(x.OpKeySpan, k)
	return x.opsByKey[lo:hi]
}

// KeyOpsThatMayHaveWritten is k's persists but those that failed, those
// answered as a replay, and those invoked after an ok answer of the key
// had completed: a fail took no effect (history/FORMAT.md), so none of
// them wrote the key's message, whatever it sent; a replay (`dedup`)
// answered with a message an earlier persist made, as sequence_monotonic
// and the linearizability model read it ("not the replay"); and once an
// ok answer came the key's message existed (a second one of the key is
// idempotency_guarantee's). (Counted among its authors, a failed
// persist's other content let a message holding that content pass: a
// red-team's; so did a replay's, a retry with other content of a key
// whose first send timed out, stored as the retry sent it and answered
// as a replay, and a later send's: session hostile36's.)
func (x *Index) KeyOpsThatMayHaveWritten(k int32) []int32 {
	ops := x.KeyOps(k)
	known := int64(math.MaxInt64) // when the first ok answer of k completed
	for _, o := range ops {
		if op := x.Ops.At(o); op.Status == StOK && op.done < known {
			known = op.done
		}
	}
	for i, o := range ops {
		if !x.cannotHaveWritten(o, known) {
			continue
		}
		kept := append([]int32(nil), ops[:i]...)
		for _, o := range ops[i+1:] {
			if !x.cannotHaveWritten(o, known) {
				kept = append(kept, o)
			}
		}
		return kept
	}
	return ops
}

// cannotHaveWritten is whether persist o wrote no message of its key:
// it failed, was answered as a replay of one written before, or was
// invoked after time known, when an ok answer of its key had shown the
// message written.
func (x *Index) cannotHaveWritten(o int32, known int64) bool {
	op := x.Ops.At(o)
	return op.Status == StFail || op.dedup() || op.call > known
}

func (x *Index) IsRejection(o int32) bool {
	return x.Ops.At(o).Status == StFail && x.ErrNames[x.Ops.At(o).Err()] == "idempotency_key_reused"
}

// FirstSent is the first persist of o's key (o itself for a keyless
// persist): no attempt at its message began before it.
func (x *Index) FirstSent(o int32) int32 {
	if k := x.Ops.At(o).Key; k >= 0 {
		if ops := x.KeyOps(k); len(ops) > 0 {
			return ops[0]
		}
	}
	return o
}
