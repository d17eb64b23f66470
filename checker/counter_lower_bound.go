package checker

import (
	"github.com/chatseq/chatseq/checker/internal/store"
	"github.com/chatseq/chatseq/history"
)

// NameCounterLowerBound is the invariant's name as HISTORY.md spells it.
const NameCounterLowerBound = "counter_lower_bound"

// checkCounterLowerBound: a chat holds no more final messages than its
// counter (ADR-004 counter_lower_bound).
func checkCounterLowerBound(x *index) Result {
	v := newVerdict(NameCounterLowerBound)
	if !x.HasCounters || !x.HasMessages {
		v.notApplicable("%s", x.Lacking(history.TableCounters, history.TableMessages))
		return v.result()
	}
	u := unjudged{}
	judged := 0
	for c := int32(0); c < int32(len(x.ChatNames)); c++ {
		lo, hi := store.Span(x.MsgSpan, c)
		if hi == lo {
			continue
		}
		fi, why := x.CounterOf(c)
		if fi < 0 {
			u.add(why, c)
			continue
		}
		judged++
		f := x.Fin.At(fi)
		ms := x.Msgs[lo:hi]
		count := 0 // distinct (seq, message_id): a repeated line is one message
		for i := range ms {
			if i == 0 || x.Fin.At(ms[i]).Seq != x.Fin.At(ms[i-1]).Seq || x.Fin.At(ms[i]).MessageID != x.Fin.At(ms[i-1]).MessageID {
				count++
			}
		}
		if uint64(count) > f.Value() {
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
		}
	}
	u.report(x, v)
	v.pass("%s: message count ≤ counter", plural(judged, "chat"))
	return v.result()
}
