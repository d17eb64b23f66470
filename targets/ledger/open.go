package ledger

import (
	"context"
	"fmt"

	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/targets"
)

// Name is the target's name for --target.
const Name = "ledger"

// Contract is what the ADR promises: sequences assigned at apply time
// leave no gaps ("no sequence reserved until commit succeeds"); a key
// reused with another payload is rejected with IDEMPOTENCY_KEY_REUSED. The
// ledger publishes no events, so it promises no order of them. Its
// clients catch up by cursor (ADR-001 §4), which apply-time assignment
// keeps: a sequence is visible only once every lower one is. Keys are
// scoped per client per chat: (ns_id, vault_id, client_id,
// idempotency_key), the vault a chat, the client a sender. Send
// membership: unchecked; the document names no membership (chatseq
// serve's API refuses a non-member's send before the design).
var Contract = history.Contract{
	Gaps: history.GapsForbidden, KeyReuse: history.KeyReuseReject, Events: history.EventsNone,
	CatchUp: history.CatchUpCursor, EventOrder: history.EventOrderNone,
	KeyScope: history.KeyScopeClient, SendMembership: history.SendMembershipUnchecked,
	ReadMembership: history.ReadMembershipUnchecked,
}

func init() {
	targets.Register(Name, Open)
	vs := make([]targets.Variant, len(Variants))
	for i, v := range Variants {
		vs[i] = targets.Variant{Name: string(v.Variant), Description: v.Description, CaughtBy: v.CaughtBy}
	}
	targets.RegisterVariants(Name, vs)
}

// Open prepares a three-node in-process cluster per run.
func Open(context.Context, targets.Options) (*targets.Opened, error) {
	cfg := DefaultConfig()
	return &targets.Opened{
		Factory:  Factory(cfg),
		Describe: fmt.Sprintf("Raft ledger (hashicorp/raft, %d nodes in process), apply-time sequences", cfg.Nodes),
		Fresh:    true,
		Volatile: true, // its nodes live in this process
		Contract: Contract,
		Claims: map[string]string{
			"catch_up_completeness": `ADR-001 promises that a client syncing with sequence > last_acked_sequence (§4) "catches up; no lost messages" (Appendix B)`,
		},
	}, nil
}
