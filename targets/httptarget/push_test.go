package httptarget_test

import (
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/sequencer"
)

// bench --receivers against chatseq serve: each device on /v1/push, its
// catch-ups by sync as its user, the final delivery_state read over
// HTTP; connections dropped on a clock, each device reconnecting. The
// check judges the four delivery invariants, and they hold.
func TestReceiversOverThePushChannel(t *testing.T) {
	s := startServer(t, sequencer.SyncWatermark, true)
	cfg := bench.DefaultConfig()
	cfg.Writers, cfg.Chats, cfg.Ops, cfg.Duration = 4, 3, 600, 0
	cfg.Receivers, cfg.DropConnectionsEvery, cfg.SyncLimit = 2, 5*time.Millisecond, 7
	rep := runThroughHTTP(t, s, cfg)
	status := map[string]checker.Status{}
	for _, inv := range rep.Invariants {
		status[inv.Name] = inv.Status
		if inv.Status == checker.Fail {
			t.Errorf("%s failed: %s", inv.Name, inv.Detail)
		}
	}
	for _, name := range []string{checker.NameEventualVisibility, checker.NameIdenticalOrder, checker.NameDeliveryStateConsistency, checker.NamePushAuthorization} {
		if status[name] != checker.Pass {
			t.Errorf("%s: %q, want pass (judged)", name, status[name])
		}
	}
}
