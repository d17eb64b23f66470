package httptarget_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/internal/serve"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/targets"
	"github.com/chatseq/chatseq/targets/ledger"
)

// A service keying idempotency otherwise than the contract the run states
// passed: no run sent one key from two senders of a chat, the one case
// where the scopes differ within a chat. Another member now sends the key
// a client last sent there (--key-across-senders): the ledger (per sender
// per chat) driven as ADR-004's per-chat scope makes two messages of one
// key, and ADR-004's core driven as per-client answers the second member
// with the first's message. Each passes when no key crosses senders and
// under the scope it serves.
func TestAServiceKeyingOtherwiseThanItStatesFails(t *testing.T) {
	for _, tc := range []struct {
		served, stated, wrong string
		failing               string // the invariant that fails under the wrong scope
		// detail is what that invariant's detail says. The ledger's
		// smallest violation is a sync's, which names no sender
		// (TestKeyScopeTwoSendersOneKey holds idempotency_guarantee's
		// wording of its answers and final lines).
		detail string
	}{
		{ledger.Name, history.KeyScopeClient, history.KeyScopeChat, checker.NameIdempotencyGuarantee, ""},
		{"memory", history.KeyScopeChat, history.KeyScopeClient, checker.NameAckImpliesPersistence, "another sender"},
	} {
		t.Run(tc.served, func(t *testing.T) {
			for _, run := range []struct {
				scope  string
				across float64
				fails  bool
			}{
				{tc.wrong, 0, false},
				{tc.stated, 0.2, false},
				{tc.wrong, 0.2, true},
			} {
				// A server of its own a run: the chats start empty.
				s, err := serve.Start(context.Background(), serve.Options{
					Target: tc.served, Variant: sequencer.Correct, Strategy: sequencer.TwoPhase, RepublishOnReplay: true,
					Kafka: serve.KafkaOff, Listen: "127.0.0.1:0", Seed: 1, TestHooks: true,
				})
				if err != nil {
					t.Fatalf("serving: %v", err)
				}
				t.Cleanup(func() { s.Close() })
				cfg := shortRun(1, 1500)
				cfg.KeyAcrossSenders = run.across
				rep := runThroughHTTPWith(t, s, cfg, targets.Options{KeyScope: run.scope})
				what := tc.served + " driven as key_scope " + run.scope
				if !run.fails {
					for _, r := range rep.Invariants {
						if r.Status == checker.Fail || r.Status == checker.Unknown {
							t.Errorf("%s, key across senders %g: %s is %s: %s", what, run.across, r.Name, r.Status, r.Detail)
						}
					}
					continue
				}
				r, _ := rep.Result(tc.failing)
				if r.Status != checker.Fail || rep.ExitCode() != 1 {
					t.Fatalf("%s, key across senders %g: %s is %s (exit %d), want a failure", what, run.across, tc.failing, r.Status, rep.ExitCode())
				}
				if !strings.Contains(r.Detail, tc.detail) {
					t.Errorf("%s: %s's detail %q says nothing of %q", what, tc.failing, r.Detail, tc.detail)
				}
			}
		})
	}
}
