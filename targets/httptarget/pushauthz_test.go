package httptarget_test

import (
	"context"
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

// firehose stands in front of chatseq serve: every request goes through,
// and so does every push handshake of a member; a handshake it takes
// for a "monitoring client" is instead given every chat, as the
// upstream streams them to user-0, a writer and so a member of every
// chat. outsiders: a user who is a member of no chat gets it;
// anonymous: a handshake naming no user does (else it is passed on, and
// chatseq serve refuses it, 401). states: a chat's delivery_state is
// answered to anyone, read upstream as user-0.
type firehose struct {
	upstream                     *url.URL
	proxy                        *httputil.ReverseProxy
	outsiders, anonymous, states bool
}

// memberOfSome: bench's writers (user-N) and receivers (CHAT-mK).
func memberOfSome(user string) bool {
	return strings.HasPrefix(user, "user-") || strings.Contains(user, "chat-")
}

func (f *firehose) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != httpapi.PushPath {
		if f.states && strings.HasSuffix(r.URL.Path, "/delivery_state") && !memberOfSome(r.Header.Get(httpapi.HeaderUser)) {
			r.Header.Set(httpapi.HeaderUser, bench.SenderID(0))
		}
		f.proxy.ServeHTTP(w, r)
		return
	}
	user := r.Header.Get(httpapi.HeaderUser)
	as := user
	switch {
	case user == "" && f.anonymous, user != "" && !memberOfSome(user) && f.outsiders:
		as = bench.SenderID(0)
	}
	h := http.Header{}
	if as != "" {
		h.Set(httpapi.HeaderUser, as)
	}
	server, device, ok := bridgePush(w, r, f.upstream, h)
	if !ok {
		return
	}
	defer server.CloseNow()
	defer device.CloseNow()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	go func() { // the device's frames (acks), on to the server
		defer cancel()
		for {
			typ, data, err := device.Read(ctx)
			if err != nil {
				return
			}
			if as != user {
				continue // the monitoring client's acks are not user-0's
			}
			if server.Write(ctx, typ, data) != nil {
				return
			}
		}
	}()
	relayPushes(ctx, server, device)
}

// runThroughFirehose runs bench with its defaults and two receivers a
// chat through f in front of chatseq serve, and checks the history.
func runThroughFirehose(t *testing.T, f *firehose) (checker.Report, string) {
	t.Helper()
	s := startServer(t, sequencer.Correct, true)
	base, _ := url.Parse("http://" + s.Addr)
	f.upstream = base
	f.proxy = proxyTo(base)
	front := httptest.NewServer(f)
	t.Cleanup(front.Close)

	cfg := bench.DefaultConfig()
	cfg.Writers, cfg.Chats, cfg.Ops, cfg.Duration = 4, 4, 400, 0
	cfg.Receivers = 2
	cfg.Faults = bench.FaultRates{} // no crash the proxy would have to pass on
	cfg.Brokers, cfg.Topic = s.Brokers, s.Topic
	return benchThrough(t, front.URL, cfg)
}

// A push channel that streams every chat to a device whose user is a
// member of none passed: bench's devices were all members, and
// push_authorization ("every one to a member") judged only what they
// were pushed (an outside tester's, session 35). bench now connects an
// outsider device with the receivers, outsider-push-0, held open through
// the run: what it is pushed fails. Only the outsiders' stream differs
// from chatseq serve's; the delivery invariants owed to the members
// still pass.
func TestAPushChannelStreamingToANonMemberFails(t *testing.T) {
	rep, h := runThroughFirehose(t, &firehose{outsiders: true})
	r, _ := rep.Result(checker.NamePushAuthorization)
	if r.Status != checker.Fail || !strings.Contains(r.Detail, "not a member") {
		t.Fatalf("push_authorization %s (%s), want a fail: a device of a user of no chat was streamed every chat", r.Status, r.Detail)
	}
	if !strings.Contains(h, `"user":"outsider-push-0"`) {
		t.Fatalf("no outsider device in the history")
	}
	for _, name := range []string{checker.NameEventualVisibility, checker.NameStreamCompleteness, checker.NameDeliveryStateConsistency} {
		if r, _ := rep.Result(name); r.Status != checker.Pass {
			t.Errorf("%s %s (%s), want pass: the members' devices were served as chatseq serve serves them", name, r.Status, r.Detail)
		}
	}
}

// A push channel that answers a handshake naming no user (no
// X-User-Id) with 101 and streams it every chat passed: bench never
// made one. It now makes one with the receivers, holds it open as
// anonymous-0, a member of no chat, and what it is pushed fails
// push_authorization.
func TestAPushChannelStreamingToAnAnonymousSocketFails(t *testing.T) {
	rep, h := runThroughFirehose(t, &firehose{anonymous: true})
	r, _ := rep.Result(checker.NamePushAuthorization)
	if r.Status != checker.Fail || !strings.Contains(r.Detail, "not a member") {
		t.Fatalf("push_authorization %s (%s), want a fail: a handshake naming no user was streamed every chat", r.Status, r.Detail)
	}
	if !strings.Contains(h, `{"type":"connect",`) || !strings.Contains(h, `"user":"anonymous-0"}`) {
		t.Fatalf("no anonymous device connected in the history")
	}
}

// chatseq serve refuses the anonymous handshake (401 auth.required) and
// streams nothing to the outsider device: the history records the
// refusal as a refused connect, and push_authorization passes, counting
// both.
func TestServeRefusesTheAnonymousHandshakeAndStreamsOutsidersNothing(t *testing.T) {
	rep, h := runThroughFirehose(t, &firehose{})
	if r, _ := rep.Result(checker.NamePushAuthorization); r.Status != checker.Pass {
		t.Fatalf("push_authorization %s (%s), want pass", r.Status, r.Detail)
	}
	if !strings.Contains(h, `"user":"anonymous-0","refused":true,"error":"push channel refused: 401 auth.required`) {
		t.Fatalf("the anonymous handshake's refusal is not recorded as a refused connect")
	}
	if !strings.Contains(h, `"user":"outsider-push-0"}`) {
		t.Fatalf("no outsider device connected in the history")
	}
	if r, _ := rep.Result(checker.NameReadAuthorization); r.Status != checker.Pass || !strings.Contains(r.Detail, "1 read of a chat's delivery_state judged, 1 of them by non-members: each refused") {
		t.Fatalf("read_authorization %s (%s), want a pass judging the outsider's delivery_state read", r.Status, r.Detail)
	}
	if rep.ExitCode() != 0 {
		t.Fatalf("exit %d, want 0", rep.ExitCode())
	}
}

// A service answering a chat's delivery_state (who has read up to
// where) to anyone passed: bench read it only as a member (an outside
// tester's, session 35). Each outsider device now reads one chat's as
// itself as it settles, recorded as a state_read line; answered,
// read_authorization fails it.
func TestAServiceShowingADeliveryStateToANonMemberFails(t *testing.T) {
	rep, h := runThroughFirehose(t, &firehose{states: true})
	r, _ := rep.Result(checker.NameReadAuthorization)
	if r.Status != checker.Fail || !strings.Contains(r.Detail, `"outsider-push-0" read chat "chat-0000"'s`) {
		t.Fatalf("read_authorization %s (%s), want a fail: a non-member was shown a chat's delivery_state", r.Status, r.Detail)
	}
	if !strings.Contains(h, `{"type":"state_read",`) {
		t.Fatalf("no state_read line in the history")
	}
}
