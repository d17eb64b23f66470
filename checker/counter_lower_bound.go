package checker

import (
	"github.com/chatseq/chatseq/checker/internal/store"
	"github.com/chatseq/chatseq/history"
)

// NameCounterLowerBound is the invariant's name as HISTORY.md spells it.
const NameCounterLowerBound = "counter_lower_bound"

// judgeCounterLowerBound: a chat holds no more messages than its counter
// (ADR-004 counter_lower_bound): every message has a sequence of its own
// from 1 up to the counter. The messages counted are the final messages
// table's and, without it or beside it, those the operations prove exist,
// one a key: a key a persist was answered ok for, and under key_reuse:
// reject a key a persist was refused as reused (the refusal proves the
// key's message). A counter of 0 after a rejection passed.
func judgeCounterLowerBound(j *judging) Result {
	return checkCounterLowerBound(j.x, j.con.KeyReuse == history.KeyReuseReject)
}

func checkCounterLowerBound(x *index, reject bool) Result {
	v := newVerdict(NameCounterLowerBound)
	if !x.HasCounters {
		v.notApplicable("%s", x.Lacking(history.TableCounters))
		return v.result()
	}
	u := unjudged{}
	judged := 0
	proven := make([]bool, len(x.KeyCreated)) // reset after each chat
	for c := int32(0); c < int32(len(x.ChatNames)); c++ {
		lo, hi := store.Span(x.MsgSpan, c)
		ms := x.Msgs[lo:hi]
		keys := x.provenKeys(c, reject, proven)
		if len(ms) == 0 && len(keys) == 0 {
			continue
		}
		fi, why := x.CounterOf(c)
		if fi < 0 {
			u.add(why, c)
			continue
		}
		judged++
		f := x.Fin.At(fi)
		count := 0 // distinct (seq, message_id): a repeated line is one message
		for i := range ms {
			if i == 0 || x.Fin.At(ms[i]).Seq != x.Fin.At(ms[i-1]).Seq || x.Fin.At(ms[i]).MessageID != x.Fin.At(ms[i-1]).MessageID {
				count++
			}
		}
		switch {
		case uint64(count) > f.Value():
			// The full counterexample is the counter and counter+1
			// messages; beyond 48 lines show the counter and the highest.
			lines := []int{int(f.Line)}
			if f.Value()+1 <= 48 {
				for _, m := range ms[:f.Value()+1] {
					lines = append(lines, int(x.Fin.At(m).Line))
				}
			} else {
				lines = append(lines, int(x.Fin.At(ms[len(ms)-1]).Line))
			}
			v.fail(lines, "chat %q: %d final messages but the counter is %d (line %d)", x.ChatNames[f.Chat], count, f.Value(), f.Line)
		case uint64(len(keys)) > f.Value():
			lines := []int{int(f.Line)}
			for _, o := range keys[:min(uint64(len(keys)), f.Value()+1, 24)] {
				lines = append(lines, x.DoneLine(o))
			}
			v.fail(lines, "chat %q: the operations prove a message of each of %s (an ok answer, or a rejection of the key as reused, shows it exists) but the counter is %d (line %d): each message has a sequence of its own up to it",
				x.ChatNames[f.Chat], plural(len(keys), "key"), f.Value(), f.Line)
		}
		for _, o := range keys {
			proven[x.Ops.At(o).Key] = false
		}
	}
	u.report(x, v)
	v.pass("%s: message count ≤ counter", plural(judged, "chat"))
	return v.result()
}

// provenKeys lists, one operation a key, chat c's persists whose answer
// proves their key's message exists: ok (new or a replay), or under
// reject a refusal of the key as reused. seen marks the keys listed (the
// caller clears them).
func (x *index) provenKeys(c int32, reject bool, seen []bool) []int32 {
	var out []int32
	lo, hi := store.Span(x.OpChatSpan, c)
	for _, o := range x.OpsByChat[lo:hi] {
		op := x.Ops.At(o)
		if op.Fn != store.FnPersist || op.Key < 0 || seen[op.Key] {
			continue
		}
		if op.Status == store.StOK || reject && x.IsRejection(o) {
			seen[op.Key] = true
			out = append(out, o)
		}
	}
	return out
}
