package all_test

import (
	"context"
	"testing"

	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/targets"
	"github.com/chatseq/chatseq/targets/ledger"
	"github.com/chatseq/chatseq/targets/postgres"
)

// Each target states its key scope: ADR-004's core per chat (its table is
// keyed by chat and key), the ledger per client in a chat (the client's
// key in the chat's vault), the outbox per sender across chats (the
// user's key).
func TestEveryTargetStatesItsKeyScope(t *testing.T) {
	for _, name := range []string{"memory", "dynamodb-local"} {
		if !targets.Known(name) {
			t.Fatalf("target %s not registered", name)
		}
	}
	o, err := targets.Open(context.Background(), "memory", targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	for name, c := range map[string]history.Contract{"memory": o.Contract, postgres.Name: postgres.Contract, ledger.Name: ledger.Contract} {
		want := map[string]string{"memory": history.KeyScopeChat, postgres.Name: history.KeyScopeSender, ledger.Name: history.KeyScopeClient}[name]
		if c.KeyScope != want {
			t.Errorf("target %s states key_scope %q, want %q", name, c.KeyScope, want)
		}
	}
}
