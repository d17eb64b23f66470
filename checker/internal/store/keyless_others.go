package store

// Without sole_writer, another writer may have written any final line
// whose key is not known (under key_scope client, another sender's key of
// its text), at any time. Such a writer's commit at the line's sequence
// explains all that a persist of unknown outcome committing there would (a
// sync's sight, a gap filled, a sequence taken), with fewer constraints:
// no interval to fall in. And such a persist's key, never answered ok and
// with no final line of its own, changes nothing else the model sees,
// unless a rejection as reused proves it committed. So in a chat with
// other writers and no rejection, the model takes those lines as other
// writers', holding their sequences, and the persists of unknown outcome
// that only such a line could hold as never committed: as exact as tying
// each persist to the line of its text, and decided where the relaxation
// (KeylessLinesRelax) made the chat unknown.

// KeylessLinesAreOthers reports whether chat c's final lines whose key is
// not known are taken as other writers' (the comment above).
func (x *Index) KeylessLinesAreOthers(c int32) bool {
	if x.SoleWriter {
		return false
	}
	x.rejectingOnce.Do(func() {
		x.rejecting = map[int32]bool{}
		for o := range x.Ops.Count() {
			if x.Ops.At(o).Fn == FnPersist && x.IsRejection(o) {
				x.rejecting[x.Ops.At(o).Chat] = true
			}
		}
	})
	return !x.rejecting[c]
}

// KeylessAnywhere reports whether persist o, of unknown outcome, its key
// with no final message, is one the model lets commit anywhere because a
// final message whose key is not known may be its (KeylessMayHold): not
// where such lines are other writers' and no line names its key at all,
// since then it never committed as far as the model can tell.
func (x *Index) KeylessAnywhere(o int32) bool {
	k, c := x.Ops.At(o).Key, x.Ops.At(o).Chat
	if !x.KeylessMayHold(c, k) {
		return false
	}
	if r := x.KeyIdem[k]; r >= 0 {
		// A record from before the run says the key is from before it:
		// no persist of the run committed it, which leaving the persist
		// out says (oracle seed 2971475: let commit anywhere, the model
		// took it for the key's commit, with content a rejection refused).
		return x.Fin.At(r).Seq > x.InitialCounter
	}
	return x.keyAnswered(k) || !x.KeylessLinesAreOthers(c)
}

// keyAnswered reports whether a persist of key k was answered ok: a replay
// proves the key committed, which its line may show (oracle seed 48554:
// left out, the persist that could have committed a replayed key).
func (x *Index) keyAnswered(k int32) bool {
	for _, o := range x.KeyOps(k) {
		if x.Ops.At(o).Status == StOK {
			return true
		}
	}
	return false
}

// placedSeqs is, for chat c, the sequences an ok answer or a final line
// whose key is known gives one of the history's keys: a line there whose
// key is not known is that key's message or record, no other writer's.
func (x *Index) placedSeqs(c int32) map[uint64]bool {
	placed := map[uint64]bool{}
	lo, hi := Span(x.OpChatSpan, c)
	for _, o := range x.OpsByChat[lo:hi] {
		if op := x.Ops.At(o); op.Fn == FnPersist && op.Status == StOK {
			placed[x.AckSeq(o)] = true
		}
	}
	flo, fhi := Span(x.MsgSpan, c)
	for _, lines := range [][]int32{x.Msgs[flo:fhi], x.RecordsOf(c)} {
		for _, i := range lines {
			if f := x.Fin.At(i); f.Key >= 0 && x.KeyUsed(f.Key) {
				placed[f.Seq] = true
			}
		}
	}
	return placed
}
