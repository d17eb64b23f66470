package httptarget_test

import (
	"context"
	"testing"

	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/internal/serve"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/targets/ledger"
)

// chatseq serve over a design whose send path reads no membership (the
// ledger's; the outbox's alike) refuses a non-member's send itself, as
// its API promises (403 chat.not_a_member): bench's outsider sends are
// refused and send_authorization passes. Served, both designs stored
// every one (send_authorization failed on every run).
func TestServeRefusesOutsidersOverADesignThatChecksNone(t *testing.T) {
	s, err := serve.Start(context.Background(), serve.Options{
		Target: ledger.Name, Kafka: serve.KafkaOff, Listen: "127.0.0.1:0", Seed: 1,
	})
	if err != nil {
		t.Fatalf("serving: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	cfg := shortRun(1, 1500)
	cfg.OutsiderSends, cfg.ReuseKey = 0.05, 0
	rep := runThroughHTTP(t, s, cfg)
	r, ok := rep.Result(checker.NameSendAuthorization)
	if !ok || r.Status != checker.Pass {
		t.Fatalf("send_authorization over the served ledger: %+v, want pass", r)
	}
	if rep.Stats.ErrorCodes[sequencer.CodeNotAMember] == 0 {
		t.Errorf("no send was refused as not_a_member: %v", rep.Stats.ErrorCodes)
	}
}
