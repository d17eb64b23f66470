package httpapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/httpapi"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/target"
	"github.com/chatseq/chatseq/targets/core"
)

// uncheckedTarget is a design whose send path reads no membership, as
// the outbox's and the ledger's: it stores a send from anyone (here by
// handing the core a member as the sender).
type uncheckedTarget struct{ target.Target }

func (t uncheckedTarget) Persist(ctx context.Context, req sequencer.Request, tr sequencer.Tracer) (sequencer.Outcome, error) {
	req.Sender = "u1"
	return t.Target.Persist(ctx, req, tr)
}

// The API promises 403 chat.not_a_member for a non-member's send, nothing
// written, whatever the design behind the server checks: served, the
// outbox stored every non-member's send. chatseq serve reads the
// membership itself for a design that states send_membership: unchecked
// (TestServeRefusesOutsidersOverTheOutbox, targets/postgres).
func TestANonMembersSendIsRefusedOverADesignThatChecksNone(t *testing.T) {
	tg, err := core.Factory(nil)(context.Background(), bench.DefaultConfig().TargetEnv(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.NewServer(uncheckedTarget{tg}).WithSendMembership(true).Handler())
	defer srv.Close()
	do := func(method, path, user, key, body string) int {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(httpapi.HeaderUser, user)
		if key != "" {
			req.Header.Set(httpapi.HeaderIdempotencyKey, key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := do("PUT", "/v1/chats/c1", "u1", "", `{"members":["u1"]}`); s != http.StatusCreated {
		t.Fatalf("create: %d", s)
	}
	if s := do("POST", "/v1/chats/c1/messages", "u9", "k1", `{"content":"x"}`); s != http.StatusForbidden {
		t.Errorf("a non-member's send: %d, want 403", s)
	}
	if s := do("POST", "/v1/chats/c1/messages", "u1", "k2", `{"content":"x"}`); s != http.StatusCreated {
		t.Errorf("a member's send: %d, want 201", s)
	}
	msgs, err := tg.Sync(context.Background(), "c1", 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 {
		t.Errorf("the chat holds %d messages, want the member's one", len(msgs))
	}
}
