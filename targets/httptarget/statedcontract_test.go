package httptarget_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/internal/serve"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/targets/ledger"
)

// A service driven under a contract it does not keep must fail, and it
// passed wherever the run never sent what tells the contracts apart:
//   - key_scope: no run sent one key from two senders of a chat, the one
//     case where the scopes differ within a chat. Another member now
//     sends the key a client last sent there (--key-across-senders): the
//     ledger (per sender per chat) driven as ADR-004's per-chat scope
//     makes two messages of one key, and ADR-004's core driven as
//     per-client answers the second member with the first's message.
//   - key_reuse: no run reused a key with other content unless asked
//     (--reuse-key was 0): the ledger refuses such a key (409
//     idempotency_key_reused), ADR-004's core answers the original.
//
// Each fails at bench's defaults, passes under the contract it keeps, and
// under the other when the case is never sent.
func TestAServiceDrivenUnderAContractItBreaksFails(t *testing.T) {
	ledgerKeeps := func(c *history.Contract) { c.KeyScope, c.KeyReuse = history.KeyScopeClient, history.KeyReuseReject }
	coreKeeps := func(c *history.Contract) {} // chatseq's API, as the http target opens it
	for _, tc := range []struct {
		name, served string
		keeps        func(*history.Contract)
		breaks       func(*history.Contract) // the one field changed
		send         func(*bench.Config, float64)
		failing      string // the invariant that fails under the contract it breaks
		detail       string // what that invariant's detail says
	}{
		{
			"ledger as key_scope chat", ledger.Name, ledgerKeeps,
			func(c *history.Contract) { c.KeyScope = history.KeyScopeChat },
			func(cfg *bench.Config, p float64) { cfg.KeyAcrossSenders = p },
			checker.NameIdempotencyGuarantee, `: under key_scope chat, as ADR-004 keys its table`,
		},
		{
			"core as key_scope client", "memory", coreKeeps,
			func(c *history.Contract) { c.KeyScope = history.KeyScopeClient },
			func(cfg *bench.Config, p float64) { cfg.KeyAcrossSenders = p },
			checker.NameAckImpliesPersistence, "another sender",
		},
		{
			"ledger as key_reuse return-original", ledger.Name, ledgerKeeps,
			func(c *history.Contract) { c.KeyReuse = history.KeyReuseReturnOriginal },
			func(cfg *bench.Config, p float64) { cfg.ReuseKey = p },
			checker.NameIdempotencyGuarantee, "refused as reused",
		},
		{
			"core as key_reuse reject", "memory", coreKeeps,
			func(c *history.Contract) { c.KeyReuse = history.KeyReuseReject },
			func(cfg *bench.Config, p float64) { cfg.ReuseKey = p },
			checker.NameKeyReuse, "",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			breaks := func(c *history.Contract) { tc.keeps(c); tc.breaks(c) }
			for _, run := range []struct {
				state func(*history.Contract)
				sent  float64 // -1: bench's default
				fails bool
			}{
				{breaks, 0, false},
				{tc.keeps, 0.2, false},
				{breaks, -1, true}, // as a user runs bench
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
				if run.sent >= 0 {
					tc.send(&cfg, run.sent)
				}
				rep := runThroughHTTPStating(t, s, cfg, run.state)
				what := fmt.Sprintf("%s driven as key_scope %s, key_reuse %s", tc.served, rep.Contract.KeyScope, rep.Contract.KeyReuse)
				if !run.fails {
					for _, r := range rep.Invariants {
						if r.Status == checker.Fail || r.Status == checker.Unknown {
							t.Errorf("%s, sent at %g: %s is %s: %s", what, run.sent, r.Name, r.Status, r.Detail)
						}
					}
					continue
				}
				r, _ := rep.Result(tc.failing)
				if r.Status != checker.Fail || rep.ExitCode() != 1 {
					t.Fatalf("%s, sent at %g: %s is %s (exit %d), want a failure", what, run.sent, tc.failing, r.Status, rep.ExitCode())
				}
				if !strings.Contains(r.Detail, tc.detail) {
					t.Errorf("%s: %s's detail %q says nothing of %q", what, tc.failing, r.Detail, tc.detail)
				}
			}
		})
	}
}
