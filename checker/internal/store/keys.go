package store

// KeyOps returns key k's persist operations in invoke order.
func (x *Index) KeyOps(k int32) []int32 {
	lo, hi := Span(x.OpKeySpan, k)
	return x.opsByKey[lo:hi]
}

// KeyOpsThatMayHaveWritten is k's persists but those that failed: a
// fail took no effect (history/FORMAT.md), so none of them wrote the
// key's message, whatever it sent. (Counted among its authors, a failed
// persist's other content let a message holding that content pass: a
// red-team's.)
func (x *Index) KeyOpsThatMayHaveWritten(k int32) []int32 {
	ops := x.KeyOps(k)
	for i, o := range ops {
		if x.Ops.At(o).Status != StFail {
			continue
		}
		kept := append([]int32(nil), ops[:i]...)
		for _, o := range ops[i+1:] {
			if x.Ops.At(o).Status != StFail {
				kept = append(kept, o)
			}
		}
		return kept
	}
	return ops
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
