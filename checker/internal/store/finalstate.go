package store

import (
	"github.com/chatseq/chatseq/history"
	"strings"
)

// What the Index tells of the final state and of chats: a chat's final
// counter line, whether it saw anything, which final tables a history
// lacks, the highest sequence its syncs returned.

// CounterOf returns chat c's final counter line, or why there is none to
// judge by (missing counters are counter_is_last_allocated's failure).
func (x *Index) CounterOf(c int32) (fi int32, why string) {
	fi = x.Counter[c]
	switch {
	case fi < 0 && x.WasRead(TableCounters):
		return -1, "counter missing (the counters table was read and holds no line for it)"
	case fi < 0:
		return -1, "no final counters line"
	case x.Fin.At(fi).Missing:
		return -1, "counter missing"
	}
	return fi, ""
}

// Active reports whether chat c saw any operation, allocation or message.
func (x *Index) Active(c int32) bool {
	return x.OpChatSpan[c+1] > x.OpChatSpan[c] || x.AllocSpan[c+1] > x.AllocSpan[c] || x.MsgSpan[c+1] > x.MsgSpan[c]
}

// Lacking says which of the final tables the history has no lines of:
// "no final counters or messages lines".
func (x *Index) Lacking(tables ...string) string {
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

// TopSynced is the highest sequence a sync of chat c returned, and that
// sync (0, -1 if none).
func (x *Index) TopSynced(c int32) (uint64, int32) {
	var top uint64
	at := int32(-1)
	var buf SyncBuf
	lo, hi := Span(x.SyncSpan, c)
	for _, o := range x.SyncsByChat[lo:hi] {
		if seqs, ok := x.SyncSeqsOf(o, &buf); ok && len(seqs) > 0 && seqs[len(seqs)-1] > top {
			top, at = seqs[len(seqs)-1], o
		}
	}
	return top, at
}
