package httptarget_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/httpapi"
	"github.com/chatseq/chatseq/sequencer"
)

// bodyTruster stands in front of chatseq serve and takes a send's
// sender from its body: a send whose sender_id names another user than
// its caller (X-User-Id) is passed on as that user's, so it is stored as
// theirs (one user posts as another).
func bodyTruster(upstream *url.URL) http.Handler {
	proxy := proxyTo(upstream)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/messages") {
			body, _ := io.ReadAll(r.Body)
			var b struct {
				SenderID string `json:"sender_id"`
			}
			if json.Unmarshal(body, &b) == nil && b.SenderID != "" {
				r.Header.Set(httpapi.HeaderUser, b.SenderID)
			}
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		}
		proxy.ServeHTTP(w, r)
	})
}

// runInFront runs cfg against front(chatseq serve) over the http target
// and checks the history.
func runInFront(t *testing.T, front func(*url.URL) http.Handler, cfg bench.Config) checker.Report {
	t.Helper()
	s := startServer(t, sequencer.Correct, false)
	base, _ := url.Parse("http://" + s.Addr)
	srv := httptest.NewServer(front(base))
	t.Cleanup(srv.Close)
	cfg.KafkaOff = true
	rep, _ := benchThrough(t, srv.URL, cfg)
	return rep
}

// A service that takes a send's sender from its body, not from who is
// calling, let anyone post as a member, and passed: bench's sends named
// their caller in both, and its outsider sends named the outsider in
// both, which the body's membership check refused (an outside tester's,
// session 35). bench now sends 1% of its sends as outsider-N with a body
// naming the writer's user (--forged-senders): stored as the member's,
// send_authorization fails them (the persist's sender is its caller).
// chatseq serve refuses them (403 auth.sender_mismatch) and passes.
func TestAServiceTakingTheSenderFromTheBodyFails(t *testing.T) {
	cfg := bench.DefaultConfig()
	cfg.Writers, cfg.Chats, cfg.Ops, cfg.Duration = 4, 8, 3000, 0
	cfg.OutsiderSends, cfg.Faults = 0, bench.FaultRates{}
	rep := runInFront(t, bodyTruster, cfg)
	r, _ := rep.Result(checker.NameSendAuthorization)
	if r.Status != checker.Fail {
		t.Fatalf("send_authorization %s (%s), want a fail: sends made as outsiders were stored as members'", r.Status, r.Detail)
	}

	direct := runInFront(t, func(u *url.URL) http.Handler { return httputil.NewSingleHostReverseProxy(u) }, cfg)
	if r, _ := direct.Result(checker.NameSendAuthorization); r.Status != checker.Pass || !strings.Contains(r.Detail, "by non-members: none answered ok") {
		t.Fatalf("chatseq serve: send_authorization %s (%s), want a pass judging the forged sends", r.Status, r.Detail)
	}
	if direct.ExitCode() != 0 {
		for _, r := range direct.Invariants {
			if r.Status != checker.Pass {
				t.Logf("%s %s %.400s", r.Name, r.Status, r.Detail)
			}
		}
		t.Fatalf("chatseq serve: exit %d, want 0: it refuses every forged send, an outsider's or a member's", direct.ExitCode())
	}
}

// memberBodyTruster is bodyTruster for members' sends alone: a send whose
// caller is a writer's user is passed on as the user its body names; an
// outsider's forgery reaches chatseq serve as sent, and is refused.
func memberBodyTruster(upstream *url.URL) http.Handler {
	trusting := bodyTruster(upstream)
	proxy := proxyTo(upstream)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Header.Get(httpapi.HeaderUser), "user-") {
			trusting.ServeHTTP(w, r)
			return
		}
		proxy.ServeHTTP(w, r)
	})
}

// A service that lets a member post as another member passed: bench's
// forged sends were all an outsider's, which the body's membership check
// refused (the last session's note left it open). Half of them are now a
// member's whose body names another member: stored as that member's,
// what a sync or the final table shows of the message's sender is not
// the persist's (ack_implies_persistence: "a send's sender is its
// caller"), and the run fails; chatseq serve refuses them (403
// auth.sender_mismatch) and passes (TestAServiceTakingTheSenderFromTheBodyFails).
func TestAServiceLettingAMemberPostAsAnotherFails(t *testing.T) {
	cfg := bench.DefaultConfig()
	cfg.Writers, cfg.Chats, cfg.Ops, cfg.Duration = 4, 8, 3000, 0
	cfg.OutsiderSends, cfg.Faults, cfg.ForgedSenders = 0, bench.FaultRates{}, 0.05
	rep := runInFront(t, memberBodyTruster, cfg)
	if r, _ := rep.Result(checker.NameSendAuthorization); r.Status != checker.Pass {
		t.Fatalf("send_authorization %s (%s), want a pass: every outsider's forgery was refused", r.Status, r.Detail)
	}
	failed := ""
	for _, r := range rep.Invariants {
		if r.Status == checker.Fail && strings.Contains(r.Detail, "sender") {
			failed += r.Name + " "
		}
	}
	if failed == "" {
		t.Fatalf("nothing failed naming a sender: a member's sends stored as another member's passed")
	}
}
