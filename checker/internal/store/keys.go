package store

// KeyOps returns key k's persist operations in invoke order.
func (x *Index) KeyOps(k int32) []int32 {
	lo, hi := Span(x.OpKeySpan, k)
	return x.opsByKey[lo:hi]
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
