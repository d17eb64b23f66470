package checker

import (
	"strconv"

	"github.com/chatseq/chatseq/checker/internal/store"
	"github.com/chatseq/chatseq/history"
)

// NameKeyReuse is the invariant's name as HISTORY.md spells it.
const NameKeyReuse = "key_reuse"

// checkKeyReuse (contract key_reuse: reject): a key reused with other
// content is rejected with idempotency_key_reused, and only then. For a
// persist B that ended ok:
//   - if another persist A committed the key (ok, dedup=false) with another
//     payload_hash and was acked before B was invoked, B should have been
//     rejected;
//   - if B is a replay (dedup=true), the key was committed by another
//     persist that could precede it; when every such candidate carries
//     another payload_hash, B should have been rejected.
//
// A rejection R is false when the key never held other content by then:
// its committer has R's payload_hash or was invoked after R completed, or,
// with no known committer, no persist of other content that could have
// committed it was invoked before R completed.
func checkKeyReuse(x *index) Result {
	v := newVerdict(NameKeyReuse)
	if x.Ops.Len() == 0 {
		v.notApplicable("no operations")
		return v.result()
	}
	noHash, rejections, reuses := 0, 0, 0
	anyHash := false
	for i := range x.Ops.Count() {
		if x.Ops.At(i).Fn == store.FnPersist && x.Ops.At(i).Payload != 0 {
			anyHash = true
			break
		}
	}
	for k := int32(0); k < int32(len(x.KeyNames)); k++ {
		ops := x.KeyOps(k)
		if len(ops) < 2 {
			if len(ops) == 1 && x.IsRejection(ops[0]) {
				rejections++
				if x.InitialCounter > 0 {
					// A key from before the run, perhaps: linearizability
					// judges whether one can be there.
					continue
				}
				o := ops[0]
				v.fail(x.OpLines(o), "chat %q key %q was rejected as reused (line %d) but no other persist used the key",
					x.ChatNames[x.KeyChat[k]], x.KeyText(k), x.DoneLine(o))
			}
			continue
		}
		hash := func(o int32) uint64 { return x.Ops.At(o).Payload }
		var committers []int32
		for _, o := range ops {
			if hash(o) == 0 {
				noHash++
			}
			if x.Ops.At(o).Status == store.StOK && !x.IsDedup(o) {
				committers = append(committers, o)
			}
		}
		for _, b := range ops {
			if hash(b) == 0 {
				continue
			}
			switch {
			case x.Ops.At(b).Status == store.StOK && !x.IsDedup(b):
				for _, a := range committers {
					if a != b && hash(a) != 0 && hash(a) != hash(b) && x.Ret(a) < x.Call(b) {
						reuses++
						v.fail(append(x.OpLines(a), x.OpLines(b)...), "chat %q key %q held other content since line %d, yet the persist at line %d was acked as new at line %d instead of rejected",
							x.ChatNames[x.KeyChat[k]], x.KeyText(k), x.DoneLine(a), x.InvLine(b), x.DoneLine(b))
						break
					}
				}
			case x.IsDedup(b) && x.AckSeq(b) <= x.InitialCounter:
				// A key from before the run, replayed: its content is the
				// replay's (a rejection of it is judged below).
			case x.IsDedup(b):
				cands, other := 0, int32(-1)
				for _, a := range ops {
					if a == b || x.Call(a) > x.Ret(b) { // equal times are concurrent
						continue
					}
					if st := x.Ops.At(a).Status; st == store.StOK && x.IsDedup(a) || st == store.StFail {
						continue
					}
					cands++
					if hash(a) == 0 || hash(a) == hash(b) {
						other = -2 // some candidate had the same content
						break
					}
					if other == -1 {
						other = a
					}
				}
				if cands > 0 && other >= 0 {
					reuses++
					v.fail(append(x.OpLines(other), x.OpLines(b)...), "chat %q key %q could only have been committed with other content (e.g. line %d), yet the persist at line %d was answered as a replay at line %d instead of rejected",
						x.ChatNames[x.KeyChat[k]], x.KeyText(k), x.InvLine(other), x.InvLine(b), x.DoneLine(b))
				}
			case x.IsRejection(b):
				rejections++
				if why, lines := x.falseRejection(b, ops, committers); why != "" {
					v.fail(lines, "chat %q key %q was rejected as reused at line %d but %s", x.ChatNames[x.KeyChat[k]], x.KeyText(k), x.DoneLine(b), why)
				}
			}
		}
	}
	switch {
	case noHash > 0 && anyHash:
		v.unknown("%s of reused keys without payload_hash", plural(noHash, "persist"))
	case noHash > 0:
		v.notApplicable("keys are reused but no persist carries a payload_hash: a retry cannot be told from a key reused with other content")
	}
	v.pass("%s and %s of reused keys judged", plural(rejections, "rejection"), plural(reuses, "acceptance"))
	return v.result()
}

// falseRejection explains why rejection r of a key was wrong, or returns "".
func (x *index) falseRejection(r int32, ops, committers []int32) (string, []int) {
	hash := func(o int32) uint64 { return x.Ops.At(o).Payload }
	if x.InitialCounter > 0 && len(committers) == 0 {
		// Perhaps a key from before the run (linearizability judges
		// whether one can be): false only against what its replays at
		// or below the initial counter show it holds.
		for _, a := range ops {
			if x.Ops.At(a).Status == store.StOK && x.IsDedup(a) && x.AckSeq(a) <= x.InitialCounter && hash(a) != 0 && hash(a) == hash(r) {
				return "the key, from before the run, holds the same content (replayed at line " + strconv.Itoa(x.DoneLine(a)) + ")", append(x.OpLines(a), x.OpLines(r)...)
			}
		}
		return "", nil
	}
	if len(committers) > 0 {
		a := committers[0] // a second committer is idempotency_guarantee's failure
		switch {
		case hash(a) == hash(r):
			return "the key holds the same content (committed by line " + strconv.Itoa(x.InvLine(a)) + ")", append(x.OpLines(a), x.OpLines(r)...)
		case x.Call(a) > x.Ret(r):
			return "the key was first committed by a persist invoked later (line " + strconv.Itoa(x.InvLine(a)) + ")", append(x.OpLines(a), x.OpLines(r)...)
		}
		return "", nil
	}
	onlyRejected := true
	for _, a := range ops {
		st := x.Ops.At(a).Status
		if a != r && (st == store.StInfo || st == store.StOpen) && x.Call(a) <= x.Ret(r) && hash(a) != hash(r) { // equal times are concurrent
			return "", nil // a may have committed other content first
		}
		onlyRejected = onlyRejected && x.IsRejection(a)
	}
	if onlyRejected && x.InitialCounter > 0 {
		return "", nil // a key from before the run, perhaps (linearizability judges it)
	}
	return "no persist with other content could have committed the key by then", x.OpLines(r)
}

// keyReusePromise: key_reuse: reject promises that a reused key with other
// content is refused.
func keyReusePromise(j *judging) promise {
	switch j.con.KeyReuse {
	case history.KeyReuseReject:
		return promise{}
	case history.KeyReuseReturnOriginal:
		return notPromised("contract key_reuse: return-original (a reused key must get the original sequence: idempotency_guarantee judges that)")
	}
	return undefinedValue(history.FieldKeyReuse, j.con.KeyReuse)
}
