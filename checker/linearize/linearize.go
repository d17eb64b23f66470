// Package linearize decides whether one chat's operations are
// linearizable against chatseq's sequential model of a chat
// (checker/INVARIANTS.md, "The linearizability model"): exactly and in
// near-linear time (Exact), or by porcupine's search within a time and
// memory budget (Porcupine). The checker builds each chat's Chat from its
// index (NewChat, then Ops, Syncs and the final state's fields); the
// engine reads nothing else of the history but the History it is handed,
// which names operations in a counterexample.
package linearize

import (
	"math"
	"slices"

	"github.com/anishathalye/porcupine"
)

// History names the operations of the history a Chat came from (Op.Op
// numbers them), for counterexamples and visualizations.
type History interface {
	InvokeLine(op int32) int
	DoneLine(op int32) int
	// Lines are the operation's invoke and completion lines.
	Lines(op int32) []int
	Process(op int32) int
	// Key is a persist's idempotency key as written.
	Key(op int32) string
	// Ack is a persist's acknowledged sequence and message id.
	Ack(op int32) (seq uint64, id string)
	ErrorCode(op int32) string
	// Asked is a sync's request.
	Asked(op int32) (after uint64, limit int)
}

// Status is a chat's verdict, spelled as the checker's.
type Status string

const (
	Pass    Status = "pass"
	Fail    Status = "fail"
	Unknown Status = "unknown"
)

const (
	timeMin = math.MinInt64
	// timeMax is the return of an operation whose outcome is unknown:
	// its interval has no end.
	timeMax = math.MaxInt64
)

// NewChat is an empty chat named name (for visualization files) of
// history h, under the contract's gaps (forbidden) and key_reuse (reject),
// with sequences up to base from before the run; external: other writers
// may write the chat (the history does not say sole_writer).
func NewChat(h History, name string, forbidden, reject, external bool, base uint64) *Chat {
	return &Chat{h: h, name: name, Forbidden: forbidden, Reject: reject, External: external, Base: base, maxSteps: -1}
}

// prepareSteps works out what the model's steps read of all m's
// operations, before porcupine steps it from several goroutines.
func (m *Chat) prepareSteps() {
	m.floors()
	if m.Forbidden && m.External {
		for i := range m.Ops {
			switch o := &m.Ops[i]; o.Kind {
			case KindDedup:
				m.observed = append(m.observed, o.Seq)
			case KindSync:
				m.observed = append(m.observed, m.SyncOf(o).Seqs...)
			}
		}
		slices.Sort(m.observed)
		m.observed = slices.Compact(m.observed)
	}
}

// PorcupineOps is m's operations as porcupine takes them, each with the
// syncs it waits for (see Chat), its clients numbered densely from 0.
func (m *Chat) PorcupineOps() []porcupine.Operation {
	m.prepareSteps()
	clients := map[int]int{}
	ops := make([]porcupine.Operation, len(m.Ops))
	for i := range m.Ops {
		p := m.h.Process(m.Ops[i].Op)
		cl, ok := clients[p]
		if !ok {
			cl = len(clients)
			clients[p] = cl
		}
		ops[i] = porcupine.Operation{ClientId: cl, Input: int32(i), Call: m.Call[i], Return: m.Ret[i]}
	}
	linkWaits(m, ops)
	return ops
}
