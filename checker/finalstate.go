package checker

import (
	"maps"
	"slices"
	"strings"

	"github.com/chatseq/chatseq/checker/internal/store"
	"github.com/chatseq/chatseq/history"
)

// Invariants over the final state (counters and messages tables), read
// after the run. The history format has no initial state, so every chat is
// taken to start with its counter at 0 and no messages (ADR-004 §9).

// counterOf returns chat c's final counter line, or why there is none to
// judge by (missing counters are counter_is_last_allocated's failure).
func (x *index) counterOf(c int32) (fi int32, why string) {
	fi = x.Counter[c]
	switch {
	case fi < 0 && x.WasRead(store.TableCounters):
		return -1, "counter missing (the counters table was read and holds no line for it)"
	case fi < 0:
		return -1, "no final counters line"
	case x.Fin.At(fi).Missing:
		return -1, "counter missing"
	}
	return fi, ""
}

// active reports whether chat c saw any operation, allocation or message.
func (x *index) active(c int32) bool {
	return x.OpChatSpan[c+1] > x.OpChatSpan[c] || x.AllocSpan[c+1] > x.AllocSpan[c] || x.MsgSpan[c+1] > x.MsgSpan[c]
}

// lacking says which of the final tables the history has no lines of:
// "no final counters or messages lines".
func (x *index) lacking(tables ...string) string {
	var missing []string
	for _, t := range tables {
		has := map[string]bool{
			history.TableCounters: x.HasCounters, history.TableMessages: x.HasMessages,
			history.TableIdempotency: x.HasIdem, history.TableEvents: x.HasEvents,
		}[t]
		if !has {
			missing = append(missing, t)
		}
	}
	return "no final " + strings.Join(missing, " or ") + " lines"
}

// unjudged lists active chats that lack a usable counter, by reason.
type unjudged map[string][]int32

func (u unjudged) add(why string, c int32) { u[why] = append(u[why], c) }

func (u unjudged) report(x *index, v *verdict) {
	for _, why := range slices.Sorted(maps.Keys(u)) {
		v.unknown("%s: %s", why, x.ChatList(u[why]))
	}
}

// topSynced is the highest sequence a sync of chat c returned, and that
// sync (0, -1 if none).
func (x *index) topSynced(c int32) (uint64, int32) {
	var top uint64
	at := int32(-1)
	var buf store.SyncBuf
	lo, hi := store.Span(x.SyncSpan, c)
	for _, o := range x.SyncsByChat[lo:hi] {
		if seqs, ok := x.SyncSeqsOf(o, &buf); ok && len(seqs) > 0 && seqs[len(seqs)-1] > top {
			top, at = seqs[len(seqs)-1], o
		}
	}
	return top, at
}
