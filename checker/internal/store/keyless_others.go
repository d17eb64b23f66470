package store

// Without sole_writer, another writer may have written any final line
// whose key is not known (under key_scope client, another sender's key of
// its text), at any time. Such a writer's commit at the line's sequence
// explains all that a persist of unknown outcome committing there would (a
// sync's sight, a gap filled, a sequence taken), with fewer constraints:
// no interval to fall in. And such a persist's key, never answered ok and
// with no final line of its own, changes nothing else the model sees,
// unless a rejection as reused proves it committed. So with other
// writers, the model takes those lines as other writers', holding their
// sequences (but those a key rejected as reused in the chat may be), and
// the persists of unknown outcome that only such lines could hold as never
// committed: as exact as tying each persist to the line of its text, and
// decided where the relaxation (KeylessLinesRelax) made the chat unknown.

// keylessTextIsOther reports whether a final line of chat c whose key is
// not known, naming key text text (texted) or no key at all, is taken as
// another writer's (the comment above): without sole_writer, unless a key
// of c rejected as reused may be its (a rejection proves its key
// committed, and its message is then such a line: one of its text, or one
// with no key at all).
func (x *Index) keylessTextIsOther(c int32, text string, texted bool) bool {
	if x.SoleWriter {
		return false
	}
	rejected := x.rejectedTextsOf(c)
	return rejected == nil || texted && !rejected[text]
}

// keylessLineIsOther is keylessTextIsOther for final line i of chat c.
func (x *Index) keylessLineIsOther(c, i int32) bool {
	text, texted := x.SenderlessKey[i]
	return x.keylessTextIsOther(c, text, texted)
}

// keylessLinesOthersFor reports whether every final line of chat c whose
// key is not known and key k may hold (of its text, or with no key at all)
// is taken as another writer's.
func (x *Index) keylessLinesOthersFor(c, k int32) bool {
	x.keylessOnce.Do(x.gatherKeylessTexts)
	untexted := x.keylessTexts[c].all.untexted
	return x.keylessTextIsOther(c, x.KeyText(k), true) && (!untexted || x.keylessTextIsOther(c, "", false))
}

// rejectedTextsOf is the key texts of chat c's persists rejected as reused,
// nil when none was.
func (x *Index) rejectedTextsOf(c int32) map[string]bool {
	x.rejectingOnce.Do(func() {
		x.rejecting = map[int32]map[string]bool{}
		for o := range x.Ops.Count() {
			if op := x.Ops.At(o); op.Fn == FnPersist && op.Key >= 0 && x.IsRejection(o) {
				if x.rejecting[op.Chat] == nil {
					x.rejecting[op.Chat] = map[string]bool{}
				}
				x.rejecting[op.Chat][x.KeyText(op.Key)] = true
			}
		}
	})
	return x.rejecting[c]
}

// KeylessAnywhere reports whether persist o, of unknown outcome, its key
// with no final message, is one the model lets commit anywhere because a
// final message whose key is not known may be its (KeylessMayHold). Not
// when its key's record is from before the run (nothing of the run
// committed it), nor when every line it may hold is another writer's and
// nothing proves its key committed (no ok answer, no rejection, no record):
// it then never committed as far as the model can tell.
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
	return x.keyAnswered(k) || x.keyRejected(k) || !x.keylessLinesOthersFor(c, k)
}

// keyRejected reports whether a persist of key k was rejected as reused:
// that proves the key committed.
func (x *Index) keyRejected(k int32) bool { return x.keyProofs()[k]&keyWasRejected != 0 }

// keyAnswered reports whether a persist of key k was answered ok: a replay
// proves the key committed, which its line may show (oracle seed 48554:
// left out, the persist that could have committed a replayed key).
func (x *Index) keyAnswered(k int32) bool { return x.keyProofs()[k]&keyWasAnswered != 0 }

const (
	keyWasAnswered = 1 << iota
	keyWasRejected
)

// keyProofs is, per key, whether a persist of it was answered ok or
// rejected as reused, worked out in one pass: asked per operation of a
// key, a scan of its operations each time was quadratic in them (a key
// sent a million times).
func (x *Index) keyProofs() []uint8 {
	x.proofsOnce.Do(func() {
		x.proofs = make([]uint8, len(x.KeyNames))
		for o := range x.Ops.Count() {
			op := x.Ops.At(o)
			switch {
			case op.Fn != FnPersist || op.Key < 0:
			case op.Status == StOK:
				x.proofs[op.Key] |= keyWasAnswered
			case x.IsRejection(o):
				x.proofs[op.Key] |= keyWasRejected
			}
		}
	})
	return x.proofs
}

// placedSeqs is, for chat c, the sequences an ok answer (acked, its ok
// answers' sequences: keylessOwnersOf) or a final line whose key is known
// gives one of the history's keys: a line there whose key is not known is
// that key's message or record, no other writer's. It adds to acked.
func (x *Index) placedSeqs(c int32, acked map[uint64]bool) map[uint64]bool {
	placed := acked
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
