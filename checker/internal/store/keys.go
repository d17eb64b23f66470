package store

// KeyOps returns key k's persist operations in invoke order.
func (x *Index) KeyOps(k int32) []int32 {
	lo, hi := Span(x.OpKeySpan, k)
	return x.opsByKey[lo:hi]
}

// KeyOpsThatMayHaveWritten is k's persists but those that failed and
// those answered as a replay: a fail took no effect (history/FORMAT.md),
// so none of them wrote the key's message, whatever it sent; and a
// replay (`dedup`) answered with a message an earlier persist made, as
// sequence_monotonic and the linearizability model read it ("not the
// replay"). (Counted among its authors, a failed persist's other content
// let a message holding that content pass: a red-team's; so did a
// replay's, a retry with other content of a key whose first send timed
// out, stored as the retry sent it and answered as a replay: session
// hostile36's.)
func (x *Index) KeyOpsThatMayHaveWritten(k int32) []int32 {
	ops := x.KeyOps(k)
	for i, o := range ops {
		if !x.cannotHaveWritten(o) {
			continue
		}
		kept := append([]int32(nil), ops[:i]...)
		for _, o := range ops[i+1:] {
			if !x.cannotHaveWritten(o) {
				kept = append(kept, o)
			}
		}
		return kept
	}
	return ops
}

// cannotHaveWritten is whether persist o wrote no message: it failed, or
// was answered as a replay of one written before.
func (x *Index) cannotHaveWritten(o int32) bool {
	op := x.Ops.At(o)
	return op.Status == StFail || op.dedup()
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
