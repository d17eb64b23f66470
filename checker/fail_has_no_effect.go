package checker

import (
	"maps"
	"slices"

	"github.com/chatseq/chatseq/checker/internal/store"
	"github.com/chatseq/chatseq/history"
)

// NameFailHasNoEffect is the invariant's name as HISTORY.md spells it.
const NameFailHasNoEffect = "fail_has_no_effect"

// The final tables as the state after the run, not only as evidence for
// operations of unknown outcome: a persist that ended fail left nothing
// behind, and (when the history is its chats' only writer) nothing is there
// that no persist sent.

// checkFailHasNoEffect: a fail means the persist definitely took no effect
// (HISTORY.md), so no final message or idempotency record above
// initial_counter may carry a key (as key_scope scopes it) that only
// persists that ended fail used. Under key_reuse reject (reject), a
// rejection of a reused key (idempotency_key_reused) says the key is held
// by other content: it blames no effect on itself, so a key's rejections
// neither make nor spare a case (a key only rejections used is
// key_reuse's, or a message from before the run). Under return-original
// the contract has no rejection: that error is a fail like any other.
func checkFailHasNoEffect(x *index, reject bool) Result {
	v := newVerdict(NameFailHasNoEffect)
	isRejection := func(o int32) bool { return reject && x.IsRejection(o) }
	fails := 0
	for i := range x.Ops.Count() {
		if o := int32(i); x.Ops.At(o).Fn == store.FnPersist && x.Ops.At(o).Status == store.StFail && !isRejection(o) {
			fails++
		}
	}
	if fails == 0 {
		v.notApplicable("no persist ended fail (other than a rejection of a reused key)")
		return v.result()
	}
	shown := x.failedKeysShown(v, isRejection)
	if !x.HasMessages && !x.HasIdem {
		if shown == 0 {
			v.notApplicable("%s but no final messages or idempotency lines: the history holds no final state to look for their effects in", plural(fails, "failed persist"))
		} else {
			v.pass("%s: no sync shows a key only they used (no final messages or idempotency lines)", plural(fails, "failed persist"))
		}
		return v.result()
	}
	keyed, keyless := x.KeyedFinals()
	senderless := x.SoleWriter && x.senderlessOfFailedKeys(v, isRejection)
	if keyed == 0 && keyless > 0 && !senderless {
		v.notApplicable("no final message or idempotency record above initial_counter carries a key that can be attributed (%d carry none): a failed persist's message cannot be recognized", keyless)
		return v.result()
	}
	unseen := 0 // keys only fails used, with no keyed final line
	type chatText struct {
		chat int32
		text string
	}
	unseenTexts := map[chatText]bool{}
	for k := range int32(len(x.KeyNames)) {
		if !x.onlyFailed(k, isRejection) {
			continue
		}
		ops := x.KeyOps(k)
		f := x.LaterFinalOfKey(k)
		if f < 0 {
			unseen++
			unseenTexts[chatText{x.KeyChat[k], x.KeyText(k)}] = true
			continue
		}
		fl := x.Fin.At(f)
		v.fail(x.failedKeyLines(int(fl.Line), ops, isRejection), "chat %q key %q: every persist of the key ended fail (e.g. %s at line %d), yet the final %s table holds it at seq %d (line %d): a fail must take no effect",
			x.ChatNames[fl.Chat], x.KeyText(k), x.ErrCode(ops[0]), x.DoneLine(ops[0]), fl.Table, fl.Seq, fl.Line)
	}
	// Without sole_writer a line without a sender is another sender's key
	// as well as one of these: no failure, and no doubt, as a line no
	// persist sent is another writer's (no_phantom_messages).
	// With it, such a line is one of the history's keys': one only fails
	// used when it has no key at all, or that key's text (one of another
	// text is another key's, whichever).
	if unseen > 0 && x.SoleWriter {
		if doubt := x.mayBeUnseen(func(c int32, text string) bool { return unseenTexts[chatText{c, text}] }); doubt > 0 {
			v.unknown("%d final lines above initial_counter carry no key that can be attributed: %s only failed persists used may be among them", doubt, plural(unseen, "key"))
		}
	}
	v.pass("%s: no final message or idempotency record carries a key only they used", plural(fails, "failed persist"))
	return v.result()
}

// onlyFailed reports whether every persist of key k ended fail, a
// rejection of a reused key aside, and one at least did.
func (x *index) onlyFailed(k int32, isRejection func(int32) bool) bool {
	failed := 0
	for _, o := range x.KeyOps(k) {
		switch {
		case isRejection(o):
		case x.Ops.At(o).Status == store.StFail:
			failed++
		default:
			return false
		}
	}
	return failed > 0
}

// failedKeyLines is the counterexample of a failed key's effect: the line
// showing it, then its persists' completions (rejections aside).
func (x *index) failedKeyLines(shown int, ops []int32, isRejection func(int32) bool) []int {
	lines := []int{shown}
	for _, o := range ops {
		if !isRejection(o) {
			lines = append(lines, x.DoneLine(o))
		}
	}
	return lines
}

func judgeFailHasNoEffect(j *judging) Result {
	return checkFailHasNoEffect(j.x, j.con.KeyReuse == history.KeyReuseReject)
}

// senderlessOfFailedKeys, under sole_writer, fails a final line without a
// sender whose key could not be attributed (key_scope client: several
// senders used its key text) when every persist of its chat with that key
// text ended fail: only the history's persists write, and whichever of
// them it was, its fail took an effect (oracle seed 2304279).
func (x *index) senderlessOfFailedKeys(v *verdict, isRejection func(int32) bool) (failed bool) {
	type chatText struct {
		chat int32
		text string
	}
	onlyFailed := map[chatText]bool{} // false once a persist of it did not fail
	for i, text := range x.SenderlessKey {
		if f := x.Fin.At(i); x.IsRunsLine(f) {
			onlyFailed[chatText{f.Chat, text}] = false
		}
	}
	if len(onlyFailed) == 0 {
		return false
	}
	failedAt := map[chatText]int32{}
	for i := range x.Ops.Count() {
		o := int32(i)
		op := x.Ops.At(o)
		if op.Fn != store.FnPersist || op.Key < 0 || isRejection(o) {
			continue
		}
		ct := chatText{op.Chat, x.KeyText(op.Key)}
		seen, ok := onlyFailed[ct]
		switch {
		case !ok:
		case op.Status != store.StFail:
			onlyFailed[ct] = false
			failedAt[ct] = -1
		case failedAt[ct] == 0 && !seen:
			onlyFailed[ct], failedAt[ct] = true, o+1
		}
	}
	for _, i := range slices.Sorted(maps.Keys(x.SenderlessKey)) { // in file order
		f, text := x.Fin.At(i), x.SenderlessKey[i]
		ct := chatText{f.Chat, text}
		if f.Seq <= x.InitialCounter || !onlyFailed[ct] || failedAt[ct] <= 0 {
			continue
		}
		o := failedAt[ct] - 1
		v.fail([]int{int(f.Line), x.DoneLine(o)}, "chat %q: the final %s line %d holds key %q without a sender, and every persist of the chat with that key ended fail (e.g. %s at line %d): the history is its chats' only writer, so one of those fails took an effect",
			x.ChatNames[f.Chat], f.Table, f.Line, text, x.ErrCode(o), x.DoneLine(o))
		failed = true
	}
	return failed
}

// mayBeUnseen counts the final lines above initial_counter whose key
// cannot be attributed that may be the line of a key only fails used: one
// with no key at all, or of a key text unseen says is such a key's in its
// chat.
func (x *index) mayBeUnseen(unseen func(chat int32, text string) bool) int {
	n := 0
	for i, f := range x.RunsLines() {
		if f.Key != store.FinKeyless {
			continue
		}
		if text, texted := x.SenderlessKey[i]; !texted || unseen(f.Chat, text) {
			n++
		}
	}
	return n
}
