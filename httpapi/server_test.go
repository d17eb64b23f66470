package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/httpapi"
	"github.com/chatseq/chatseq/httpapi/apitest"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/target"
	"github.com/chatseq/chatseq/targets/core"
)

// rejectingTarget answers the key "reused" as a reject-contract target
// (the ledger) answers a key reused with other content.
type rejectingTarget struct{ target.Target }

func (t rejectingTarget) Persist(ctx context.Context, req sequencer.Request, tr sequencer.Tracer) (sequencer.Outcome, error) {
	if req.Key == "reused" {
		return sequencer.Outcome{}, &sequencer.Error{Code: "idempotency_key_reused", Definite: true, Err: errors.New("other payload")}
	}
	return t.Target.Persist(ctx, req, tr)
}

// newServer serves a fresh core with its test hooks on.
func newServer(t *testing.T) (*httptest.Server, *apitest.Transport) {
	return newServerHooks(t, true)
}

func newServerHooks(t *testing.T, hooks bool) (*httptest.Server, *apitest.Transport) {
	t.Helper()
	target, err := core.Factory(nil)(context.Background(), bench.DefaultConfig().TargetEnv(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.NewServer(rejectingTarget{target}).WithTestHooks(hooks).Handler())
	t.Cleanup(srv.Close)
	return srv, apitest.NewTransport(t, nil)
}

type call struct {
	name, method, path, key, faults, body string
	user                                  string // X-User-Id: "" is u1, "-" none
	status                                int
	code                                  string // error code, or "" for success
	replayed                              bool
	retryAfter                            bool
}

// Every status the API documents, as the server answers it, checked
// against docs/openapi.yaml.
func TestServerAnswersAsTheOpenAPIDocumentSays(t *testing.T) {
	srv, tr := newServer(t)
	tr.RequestsMayBeInvalid = true // some calls leave out Idempotency-Key on purpose
	client := &http.Client{Transport: tr}
	send := `{"sender_id":"u1","content":"hello"}`
	calls := []call{
		{name: "create", method: "PUT", path: "/v1/chats/c1", body: `{"members":["u1","u2"]}`, status: 201},
		{name: "create again", method: "PUT", path: "/v1/chats/c1", body: `{"members":["u1"]}`, status: 409, code: httpapi.CodeChatExists},
		{name: "create without members", method: "PUT", path: "/v1/chats/c2", body: `{"members":[]}`, status: 400, code: httpapi.CodeBadRequest},
		{name: "send", method: "POST", path: "/v1/chats/c1/messages", key: "k1", body: send, status: 201},
		{name: "replay", method: "POST", path: "/v1/chats/c1/messages", key: "k1", body: send, status: 201, replayed: true},
		{name: "no key", method: "POST", path: "/v1/chats/c1/messages", body: send, status: 400, code: httpapi.CodeKeyRequired},
		{name: "long key", method: "POST", path: "/v1/chats/c1/messages", key: strings.Repeat("k", 129), body: send, status: 400, code: httpapi.CodeKeyTooLong},
		{name: "unknown field", method: "POST", path: "/v1/chats/c1/messages", key: "k9", body: `{"sender_id":"u1","text":"x"}`, status: 400, code: httpapi.CodeBadRequest},
		{name: "not a member", method: "POST", path: "/v1/chats/c1/messages", key: "k2", user: "u9", body: `{"sender_id":"u9","content":"x"}`, status: 403, code: httpapi.CodeNotAMember},
		{name: "sender is the caller", method: "POST", path: "/v1/chats/c1/messages", key: "k7", user: "u2", body: `{"content":"x"}`, status: 201},
		{name: "sender is not the caller", method: "POST", path: "/v1/chats/c1/messages", key: "k8", user: "u2", body: send, status: 403, code: httpapi.CodeSenderMismatch},
		{name: "send without a caller", method: "POST", path: "/v1/chats/c1/messages", key: "k8", user: "-", body: send, status: 401, code: httpapi.CodeUnauthenticated},
		{name: "create among others", method: "PUT", path: "/v1/chats/c3", user: "u9", body: `{"members":["u1"]}`, status: 403, code: httpapi.CodeNotAMember},
		{name: "sync by a non-member", method: "GET", path: "/v1/chats/c1/messages", user: "u9", status: 403, code: httpapi.CodeNotAMember},
		{name: "sync of no chat", method: "GET", path: "/v1/chats/nowhere/messages", status: 403, code: httpapi.CodeNotAMember},
		{name: "sync without a caller", method: "GET", path: "/v1/chats/c1/messages", user: "-", status: 401, code: httpapi.CodeUnauthenticated},
		{name: "key reused", method: "POST", path: "/v1/chats/c1/messages", key: "reused", body: send, status: 409, code: httpapi.CodePayloadMismatch},
		{name: "throttled", method: "POST", path: "/v1/chats/c1/messages", key: "k3", faults: "store=throttled/allocate", body: send, status: 503, code: httpapi.CodeUnavailable, retryAfter: true},
		{name: "500 on the transaction", method: "POST", path: "/v1/chats/c1/messages", key: "k4", faults: "store=internal_error/transact/applied", body: send, status: 500, code: httpapi.CodeUnknownOutcome},
		{name: "bad fault header", method: "POST", path: "/v1/chats/c1/messages", key: "k5", faults: "meteor", body: send, status: 400, code: httpapi.CodeBadRequest},
		{name: "sync", method: "GET", path: "/v1/chats/c1/messages?after=0&limit=1", status: 200},
		{name: "sync bad limit", method: "GET", path: "/v1/chats/c1/messages?limit=0", status: 400, code: httpapi.CodeBadRequest},
		{name: "counter", method: "GET", path: "/v1/chats/c1/counter", status: 200},
		{name: "set counter", method: "PUT", path: "/v1/chats/c1/counter", body: `{"value":10}`, status: 200},
		{name: "delete counter", method: "DELETE", path: "/v1/chats/c1/counter", status: 204},
		{name: "counter missing", method: "POST", path: "/v1/chats/c1/messages", key: "k6", body: send, status: 503, code: httpapi.CodeUnavailable, retryAfter: true},
		{name: "no counter", method: "GET", path: "/v1/chats/c1/counter", status: 404, code: httpapi.CodeChatNotFound},
	}
	for _, c := range calls {
		req, err := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		if c.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		switch c.user {
		case "":
			req.Header.Set(httpapi.HeaderUser, "u1")
		case "-":
		default:
			req.Header.Set(httpapi.HeaderUser, c.user)
		}
		if c.key != "" {
			req.Header.Set(httpapi.HeaderIdempotencyKey, c.key)
		}
		if c.faults != "" {
			req.Header.Set(httpapi.HeaderFaults, c.faults)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("%s: status %d, want %d: %s", c.name, resp.StatusCode, c.status, body)
			continue
		}
		if c.code != "" {
			var e httpapi.ErrorBody
			if err := json.Unmarshal(body, &e); err != nil || e.Error.Code != c.code {
				t.Errorf("%s: body %s, want error code %s", c.name, body, c.code)
			}
		}
		if got := resp.Header.Get(httpapi.HeaderReplayed) == "true"; got != c.replayed {
			t.Errorf("%s: Idempotency-Replayed %v, want %v", c.name, got, c.replayed)
		}
		if got := resp.Header.Get(httpapi.HeaderRetryAfter) != ""; got != c.retryAfter {
			t.Errorf("%s: Retry-After present %v, want %v", c.name, got, c.retryAfter)
		}
	}
	tr.Check(t)
}

// The settle and kafka_outage hooks answer as docs/openapi.yaml says:
// settle 204 once the target settled; an outage 204 with its length
// handed to the server's producer, 400 without a positive for_ms, and 409
// kafka.off from a server that publishes to no Kafka.
func TestSettleAndKafkaOutageHooksAnswerAsDocumented(t *testing.T) {
	target, err := core.Factory(nil)(context.Background(), bench.DefaultConfig().TargetEnv(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	outages := make(chan time.Duration, 10)
	withKafka := httptest.NewServer(httpapi.NewServer(target).WithTestHooks(true).WithKafkaOutage(func(d time.Duration) {
		outages <- d
	}).Handler())
	defer withKafka.Close()
	noKafka, tr := newServer(t)
	tr.RequestsMayBeInvalid = true // for_ms 0 and a missing for_ms on purpose
	client := &http.Client{Transport: tr}
	for _, c := range []struct {
		base, path, body string
		status           int
		code             string
	}{
		{withKafka.URL, httpapi.SettlePath, "", 204, ""},
		{withKafka.URL, httpapi.KafkaOutagePath, `{"for_ms":1500}`, 204, ""},
		{withKafka.URL, httpapi.KafkaOutagePath, `{"for_ms":0}`, 400, httpapi.CodeBadRequest},
		{withKafka.URL, httpapi.KafkaOutagePath, `{}`, 400, httpapi.CodeBadRequest},
		{noKafka.URL, httpapi.KafkaOutagePath, `{"for_ms":1500}`, 409, httpapi.CodeKafkaOff},
		{noKafka.URL, httpapi.SettlePath, "", 204, ""},
	} {
		req, _ := http.NewRequest("POST", c.base+c.path, strings.NewReader(c.body))
		if c.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var e httpapi.ErrorBody
		if resp.StatusCode != c.status || c.code != "" && (json.Unmarshal(body, &e) != nil || e.Error.Code != c.code) {
			t.Errorf("POST %s %s: %d %s, want %d %s", c.path, c.body, resp.StatusCode, body, c.status, c.code)
		}
	}
	close(outages)
	var asked []time.Duration
	for d := range outages {
		asked = append(asked, d)
	}
	if len(asked) != 1 || asked[0] != 1500*time.Millisecond {
		t.Errorf("the server's producer was asked for outages %v, want one of 1.5s", asked)
	}
	tr.Check(t)
}

// A crash of the server, as a fault plan asks, drops the connection: the
// client gets no answer at all.
func TestCrashDropsTheConnection(t *testing.T) {
	srv, _ := newServer(t)
	put, _ := http.NewRequest("PUT", srv.URL+"/v1/chats/c1", strings.NewReader(`{"members":["u1"]}`))
	put.Header.Set(httpapi.HeaderUser, "u1")
	if resp, err := http.DefaultClient.Do(put); err != nil || resp.StatusCode != 201 {
		t.Fatalf("create: %v %v", resp, err)
	}
	req, _ := http.NewRequest("POST", srv.URL+"/v1/chats/c1/messages", strings.NewReader(`{"sender_id":"u1","content":"x"}`))
	req.Header.Set(httpapi.HeaderIdempotencyKey, "k1")
	req.Header.Set(httpapi.HeaderUser, "u1")
	req.Header.Set(httpapi.HeaderFaults, "crash_after_allocate")
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("a crash answered %d, want a dropped connection", resp.StatusCode)
	}
}

// Paging from 0 returns every message once, ascending, and next_after is
// absent on the last page.
func TestSyncPagesAscending(t *testing.T) {
	srv, tr := newServer(t)
	client := &http.Client{Transport: tr}
	do := apiCaller(t, client, srv.URL)
	do("PUT", "/v1/chats/c", "", `{"members":["u"]}`).Body.Close()
	for i := range 5 {
		do("POST", "/v1/chats/c/messages", "k"+string(rune('a'+i)), `{"sender_id":"u","content":"x"}`).Body.Close()
	}
	var seqs []uint64
	after, pages := "0", 0
	for {
		resp := do("GET", "/v1/chats/c/messages?limit=2&after="+after, "", "")
		var page httpapi.SyncResponse
		if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		pages++
		for _, m := range page.Messages {
			seqs = append(seqs, m.Sequence)
		}
		if page.NextAfter == nil {
			break
		}
		after = jsonNumber(*page.NextAfter)
	}
	if want := []uint64{1, 2, 3, 4, 5}; !equal(seqs, want) || pages != 3 {
		t.Errorf("paged sync: %v in %d pages, want %v in 3", seqs, pages, want)
	}
	tr.Check(t)
}

func jsonNumber(v uint64) string { b, _ := json.Marshal(v); return string(b) }

func equal(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Without --test-hooks, no client reaches inside the design: the counter
// paths answer 404 and a fault plan 400 (test_hooks.off), a race header is
// ignored, and the counter stays as the sends left it.
func TestTestHooksAreOffUnlessAsked(t *testing.T) {
	srv, tr := newServerHooks(t, false)
	client := &http.Client{Transport: tr}
	do := apiCaller(t, client, srv.URL)
	expect := func(resp *http.Response, status int, code string) {
		t.Helper()
		defer resp.Body.Close()
		var e httpapi.ErrorBody
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != status || code != "" && (json.Unmarshal(body, &e) != nil || e.Error.Code != code) {
			t.Errorf("%s %s: %d %s, want %d %s", resp.Request.Method, resp.Request.URL.Path, resp.StatusCode, body, status, code)
		}
	}
	expect(do("PUT", "/v1/chats/c", "", `{"members":["u"]}`), 201, "")
	expect(do("POST", "/v1/chats/c/messages", "k1", `{"content":"x"}`), 201, "")
	expect(do("PUT", "/v1/chats/c/counter", "", `{"value":0}`), 404, httpapi.CodeTestHooksOff)
	expect(do("DELETE", "/v1/chats/c/counter", "", ""), 404, httpapi.CodeTestHooksOff)
	expect(do("GET", "/v1/chats/c/counter", "", ""), 404, httpapi.CodeTestHooksOff)
	expect(do("POST", httpapi.SettlePath, "", ""), 404, httpapi.CodeTestHooksOff)
	expect(do("POST", httpapi.KafkaOutagePath, "", `{"for_ms":1000}`), 404, httpapi.CodeTestHooksOff)
	req, _ := http.NewRequest("POST", srv.URL+"/v1/chats/c/messages", strings.NewReader(`{"content":"y"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(httpapi.HeaderUser, "u")
	req.Header.Set(httpapi.HeaderIdempotencyKey, "k2")
	req.Header.Set(httpapi.HeaderFaults, "crash_after_allocate")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("a fault plan sent to a server without hooks crashed it: %v", err)
	}
	expect(resp, 400, httpapi.CodeTestHooksOff)
	req, _ = http.NewRequest("POST", srv.URL+"/v1/chats/c/messages", strings.NewReader(`{"content":"z"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(httpapi.HeaderUser, "u")
	req.Header.Set(httpapi.HeaderIdempotencyKey, "k3")
	req.Header.Set(httpapi.HeaderRace, "2")
	if resp, err = client.Do(req); err != nil {
		t.Fatal(err)
	}
	expect(resp, 201, "")
	// Both sends persisted: 1 and 2, the counter untouched by the hooks.
	resp = do("GET", "/v1/chats/c/messages", "", "")
	var page httpapi.SyncResponse
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(page.Messages) != 2 || page.Messages[1].Sequence != 2 || page.Messages[0].SenderID != "u" {
		t.Errorf("sync after the refused hooks: %+v, want sequences 1 and 2 sent by u", page.Messages)
	}
	tr.Check(t)
}
