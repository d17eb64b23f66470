package ledger

import (
	"context"
	"testing"
)

// An administrative entry whose leader is cut off while it commits is
// proposed again to the next leader: creating a chat (and setting its
// counter) is idempotent. A run's setup failed on one election on a busy
// machine: "leadership lost while committing log".
func TestCreateChatOutlivesItsLeaderCutOff(t *testing.T) {
	tgt := newTarget(t, testConfig(), AsDesigned)
	ld, err := tgt.cl.waitLeader(context.Background(), tgt.cfg.LeaderWait)
	if err != nil {
		t.Fatal(err)
	}
	tgt.cl.cutOff(ld.index)
	defer tgt.cl.heal()
	if err := tgt.CreateChat(context.Background(), "c", nil); err != nil {
		t.Fatalf("creating a chat while its leader was cut off: %v", err)
	}
	if now, err := tgt.cl.waitLeader(context.Background(), tgt.cfg.LeaderWait); err != nil || now == ld {
		t.Fatalf("the chat was created, yet the cut-off node %d still leads (%v)", ld.index, err)
	}
	if err := tgt.SetCounter(context.Background(), "c", 7); err != nil {
		t.Fatalf("the created chat's counter: %v", err)
	}
}
