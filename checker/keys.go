package checker

// keyOps returns key k's persist operations in invoke order.
func (x *index) keyOps(k int32) []int32 {
	lo, hi := span(x.opKeySpan, k)
	return x.opsByKey[lo:hi]
}

func (x *index) isRejection(o int32) bool {
	return x.ops.At(o).status == stFail && x.errNames[x.ops.At(o).err()] == "idempotency_key_reused"
}
