package checker

import (
	"strconv"

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
	if x.ops.Len() == 0 {
		v.notApplicable("no operations")
		return v.result()
	}
	noHash, rejections, reuses := 0, 0, 0
	anyHash := false
	for i := range x.ops.Count() {
		if x.ops.At(i).fn == fnPersist && x.ops.At(i).payload != 0 {
			anyHash = true
			break
		}
	}
	for k := int32(0); k < int32(len(x.keyNames)); k++ {
		ops := x.keyOps(k)
		if len(ops) < 2 {
			if len(ops) == 1 && x.isRejection(ops[0]) {
				rejections++
				if x.initialCounter > 0 {
					// A key from before the run, perhaps: linearizability
					// judges whether one can be there.
					continue
				}
				o := ops[0]
				v.fail(x.opLines(o), "chat %q key %q was rejected as reused (line %d) but no other persist used the key",
					x.chatNames[x.keyChat[k]], x.keyText(k), x.doneLine(o))
			}
			continue
		}
		hash := func(o int32) uint64 { return x.ops.At(o).payload }
		var committers []int32
		for _, o := range ops {
			if hash(o) == 0 {
				noHash++
			}
			if x.ops.At(o).status == stOK && !x.isDedup(o) {
				committers = append(committers, o)
			}
		}
		for _, b := range ops {
			if hash(b) == 0 {
				continue
			}
			switch {
			case x.ops.At(b).status == stOK && !x.isDedup(b):
				for _, a := range committers {
					if a != b && hash(a) != 0 && hash(a) != hash(b) && x.ret(a) < x.call(b) {
						reuses++
						v.fail(append(x.opLines(a), x.opLines(b)...), "chat %q key %q held other content since line %d, yet the persist at line %d was acked as new at line %d instead of rejected",
							x.chatNames[x.keyChat[k]], x.keyText(k), x.doneLine(a), x.invLine(b), x.doneLine(b))
						break
					}
				}
			case x.isDedup(b) && x.ackSeq(b) <= x.initialCounter:
				// A key from before the run, replayed: its content is the
				// replay's (a rejection of it is judged below).
			case x.isDedup(b):
				cands, other := 0, int32(-1)
				for _, a := range ops {
					if a == b || x.call(a) > x.ret(b) { // equal times are concurrent
						continue
					}
					if st := x.ops.At(a).status; st == stOK && x.isDedup(a) || st == stFail {
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
					v.fail(append(x.opLines(other), x.opLines(b)...), "chat %q key %q could only have been committed with other content (e.g. line %d), yet the persist at line %d was answered as a replay at line %d instead of rejected",
						x.chatNames[x.keyChat[k]], x.keyText(k), x.invLine(other), x.invLine(b), x.doneLine(b))
				}
			case x.isRejection(b):
				rejections++
				if why, lines := x.falseRejection(b, ops, committers); why != "" {
					v.fail(lines, "chat %q key %q was rejected as reused at line %d but %s", x.chatNames[x.keyChat[k]], x.keyText(k), x.doneLine(b), why)
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
	hash := func(o int32) uint64 { return x.ops.At(o).payload }
	if x.initialCounter > 0 && len(committers) == 0 {
		// Perhaps a key from before the run (linearizability judges
		// whether one can be): false only against what its replays at
		// or below the initial counter show it holds.
		for _, a := range ops {
			if x.ops.At(a).status == stOK && x.isDedup(a) && x.ackSeq(a) <= x.initialCounter && hash(a) != 0 && hash(a) == hash(r) {
				return "the key, from before the run, holds the same content (replayed at line " + strconv.Itoa(x.doneLine(a)) + ")", append(x.opLines(a), x.opLines(r)...)
			}
		}
		return "", nil
	}
	if len(committers) > 0 {
		a := committers[0] // a second committer is idempotency_guarantee's failure
		switch {
		case hash(a) == hash(r):
			return "the key holds the same content (committed by line " + strconv.Itoa(x.invLine(a)) + ")", append(x.opLines(a), x.opLines(r)...)
		case x.call(a) > x.ret(r):
			return "the key was first committed by a persist invoked later (line " + strconv.Itoa(x.invLine(a)) + ")", append(x.opLines(a), x.opLines(r)...)
		}
		return "", nil
	}
	onlyRejected := true
	for _, a := range ops {
		st := x.ops.At(a).status
		if a != r && (st == stInfo || st == stOpen) && x.call(a) <= x.ret(r) && hash(a) != hash(r) { // equal times are concurrent
			return "", nil // a may have committed other content first
		}
		onlyRejected = onlyRejected && x.isRejection(a)
	}
	if onlyRejected && x.initialCounter > 0 {
		return "", nil // a key from before the run, perhaps (linearizability judges it)
	}
	return "no persist with other content could have committed the key by then", x.opLines(r)
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
	return undefinedValue("key_reuse", j.con.KeyReuse)
}
