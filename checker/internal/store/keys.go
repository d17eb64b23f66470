package store

// KeyOps returns key k's persist operations in invoke order.
func (x *Index) KeyOps(k int32) []int32 {
	lo, hi := Span(x.OpKeySpan, k)
	return x.opsByKey[lo:hi]
}

func (x *Index) IsRejection(o int32) bool {
	return x.Ops.At(o).Status == StFail && x.ErrNames[x.Ops.At(o).Err()] == "idempotency_key_reused"
}
