package metrics

import (
	"testing"

	"github.com/chatseq/chatseq/sequencer"
)

// BenchmarkTallyAdd is what counting one persist costs a writer's batch.
func BenchmarkTallyAdd(b *testing.B) {
	t := NewTally(64)
	op := Op{Outcome: OK, Allocated: true, AllocateNanos: 150, Steps: sequencer.StepEvents{Transactions: 1, Committed: true}}
	for i := range b.N {
		op.Chat = i & 63
		t.Add(&op)
	}
}
