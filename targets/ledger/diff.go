package ledger

import (
	"fmt"

	"github.com/hashicorp/raft"

	"github.com/chatseq/chatseq/store"
)

// stateDiff names the first difference between two nodes' final states.
func stateDiff(aID raft.ServerID, a store.State, bID raft.ServerID, b store.State) string {
	if d := firstDiff(a.Counters, b.Counters, func(c store.Counter) string { return fmt.Sprintf("counter %s=%d", c.Chat, c.Value) }); d != "" {
		return fmt.Sprintf("%s vs %s: %s", aID, bID, d)
	}
	if d := firstDiff(a.Messages, b.Messages, func(m store.Message) string {
		return fmt.Sprintf("message %s seq %d %s key %s", m.Chat, m.Seq, m.MessageID, m.Key)
	}); d != "" {
		return fmt.Sprintf("%s vs %s: %s", aID, bID, d)
	}
	if d := firstDiff(a.Idempotency, b.Idempotency, func(r store.IdempotencyRecord) string {
		return fmt.Sprintf("key %s/%s seq %d %s", r.Chat, r.Key, r.Seq, r.MessageID)
	}); d != "" {
		return fmt.Sprintf("%s vs %s: %s", aID, bID, d)
	}
	return fmt.Sprintf("%s vs %s: states differ in a field not shown", aID, bID)
}

func firstDiff[T any](a, b []T, show func(T) string) string {
	for i := 0; i < len(a) || i < len(b); i++ {
		switch {
		case i >= len(a):
			return fmt.Sprintf("only the second has %s", show(b[i]))
		case i >= len(b):
			return fmt.Sprintf("only the first has %s", show(a[i]))
		case show(a[i]) != show(b[i]):
			return fmt.Sprintf("%s vs %s", show(a[i]), show(b[i]))
		}
	}
	return ""
}
