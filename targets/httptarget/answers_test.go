package httptarget_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/gateway"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/store"
	"github.com/chatseq/chatseq/target"
	"github.com/chatseq/chatseq/targets/httptarget"
)

// redirectingService answers every send and every page with a 302 to
// /elsewhere, which answers 404: what net/http's redirect rule turned into
// a send's definite failure.
type redirectingService struct{ elsewhere atomic.Int64 }

func (s *redirectingService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	if r.URL.Path == "/elsewhere" {
		s.elsewhere.Add(1)
		http.NotFound(w, r)
		return
	}
	http.Redirect(w, r, "/elsewhere", http.StatusFound)
}

func openTarget(t *testing.T, h http.Handler) target.Target {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	base, _ := url.Parse(srv.URL)
	tgt, err := httptarget.Factory(base, httptarget.DefaultAPI(), nil)(context.Background(), bench.DefaultConfig().TargetEnv(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tgt.Close() })
	return tgt
}

// A send answered 302 is not followed, and never recorded as a definite
// failure: the service may have written before redirecting, and a
// redirect is no answer of the API (bad_response, api_conformance).
func TestARedirectedSendIsNotFollowedNorAFailure(t *testing.T) {
	s := &redirectingService{}
	tgt := openTarget(t, s)
	_, err := tgt.Persist(context.Background(), sequencer.Request{Chat: "c", Key: "k", Sender: "u", Content: "hi"}, nil)
	kind, code := target.Completion(err)
	if kind != history.KindInfo || code != history.ErrorBadResponse {
		t.Fatalf("a send answered 302 is recorded %s %q (%v), want info %q", kind, code, err, history.ErrorBadResponse)
	}
	if !strings.Contains(err.Error(), `redirect to "/elsewhere"`) {
		t.Errorf("the error does not name the redirect: %v", err)
	}
	_, err = tgt.Sync(context.Background(), "c", 0, 10)
	if kind, code := target.Completion(err); kind != history.KindFail || code != history.ErrorBadResponse {
		t.Fatalf("a sync answered 302 is recorded %s %q (%v), want fail %q", kind, code, err, history.ErrorBadResponse)
	}
	if n := s.elsewhere.Load(); n != 0 {
		t.Fatalf("the redirect was followed %d times", n)
	}
}

// A 302 whose Location does not parse is a bad_response too, not a lost
// connection: net/http's client parses Location before it asks whether
// to follow, and its error read as connection_lost (info), so a service
// answering every third send so passed api_conformance (an outside
// tester's, "Location: /%zz").
func TestARedirectToAnUnparsableLocationIsABadResponse(t *testing.T) {
	tgt := openTarget(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Location", "/%zz")
		w.WriteHeader(http.StatusFound)
	}))
	_, err := tgt.Persist(context.Background(), sequencer.Request{Chat: "c", Key: "k", Sender: "u", Content: "hi"}, nil)
	if kind, code := target.Completion(err); kind != history.KindInfo || code != history.ErrorBadResponse {
		t.Fatalf("a send answered 302 to /%%zz is recorded %s %q (%v), want info %q", kind, code, err, history.ErrorBadResponse)
	}
	if !strings.Contains(err.Error(), `redirect to "/%zz"`) {
		t.Errorf("the error does not name the redirect: %v", err)
	}
	_, err = tgt.Sync(context.Background(), "c", 0, 10)
	if kind, code := target.Completion(err); kind != history.KindFail || code != history.ErrorBadResponse {
		t.Fatalf("a sync answered 302 to /%%zz is recorded %s %q (%v), want fail %q", kind, code, err, history.ErrorBadResponse)
	}
}

// A mapping that gives a 3xx a meaning is taken at its word.
func TestAMappedRedirectIsAnOrdinaryAnswer(t *testing.T) {
	api, err := httptarget.ParseAPI("api.yaml", []byte("statuses:\n  302: info\n"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(&redirectingService{})
	t.Cleanup(srv.Close)
	base, _ := url.Parse(srv.URL)
	tgt, err := httptarget.Factory(base, api, nil)(context.Background(), bench.DefaultConfig().TargetEnv(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()
	_, err = tgt.Persist(context.Background(), sequencer.Request{Chat: "c", Key: "k", Sender: "u", Content: "hi"}, nil)
	if kind, code := target.Completion(err); kind != history.KindInfo || code != "http_302" {
		t.Fatalf("a send answered 302 under statuses {302: info} is recorded %s %q, want info http_302", kind, code)
	}
}

// endless writes an answer with no end; huge announces 2 GiB and sends
// its first megabytes. Each is read up to its bound, then dropped: the
// send is a bad_response naming the bound, at once.
func TestAnAnswerPastItsBoundIsABadResponse(t *testing.T) {
	chunk := []byte(strings.Repeat("x", 64<<10))
	for name, h := range map[string]http.HandlerFunc{
		"endless": func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusCreated)
			for r.Context().Err() == nil {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		},
		"2 GiB announced": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "2147483648")
			w.WriteHeader(http.StatusCreated)
			for i := 0; i < 160 && r.Context().Err() == nil; i++ {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		},
	} {
		tgt := openTarget(t, h)
		_, err := tgt.Persist(context.Background(), sequencer.Request{Chat: "c", Key: "k", Sender: "u", Content: "hi"}, nil)
		kind, code := target.Completion(err)
		want := "with more than 4194304 bytes"
		if name == "2 GiB announced" { // said as announced: little of it was read
			want = "announcing 2147483648 bytes (Content-Length), more than the 4194304 it may have"
		}
		if kind != history.KindInfo || code != history.ErrorBadResponse || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: recorded %s %q: %v; want info %q naming the bound", name, kind, code, err, history.ErrorBadResponse)
		}
	}
}

// cutMidAnswer announces a whole answer (Content-Length, or chunks) and
// drops the connection halfway through it.
type cutMidAnswer struct{ chunked bool }

func (s cutMidAnswer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	body := `{"chat_id":"c","client_message_id":"k","sequence":1,"message_id":"m1"}`
	if !s.chunked {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	w.Write([]byte(body[:len(body)/2]))
	w.(http.Flusher).Flush()
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		conn.Close()
	}
}

// A send whose answer is cut off midway has an unknown outcome
// (connection, info), as a reset after the request went out: its first
// half was taken for the whole answer, a send answered without a
// sequence (bad_response), and api_conformance failed a service whose
// connection dropped.
func TestASendCutOffMidAnswerIsUnknown(t *testing.T) {
	for _, chunked := range []bool{false, true} {
		tgt := openTarget(t, cutMidAnswer{chunked: chunked})
		_, err := tgt.Persist(context.Background(), sequencer.Request{Chat: "c", Key: "k", Sender: "u", Content: "hi"}, nil)
		kind, code := target.Completion(err)
		if kind != history.KindInfo || code != httptarget.CodeConnection {
			t.Errorf("chunked %v: a send cut off mid-answer is recorded %s %q (%v), want info %q", chunked, kind, code, err, httptarget.CodeConnection)
		}
	}
}

// A message id longer than a history's string may be (64 KiB) is no
// answer of the API: recorded, it left a history that chatseq check
// refused (exit 2) after bench had passed it.
func TestAMessageIDTooLongForTheHistoryIsABadResponse(t *testing.T) {
	id := strings.Repeat("m", history.MaxStringBytes+1)
	tgt := openTarget(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(`{"sequence":1,"message_id":"` + id + `"}`))
	}))
	_, err := tgt.Persist(context.Background(), sequencer.Request{Chat: "c", Key: "k", Sender: "u", Content: "hi"}, nil)
	kind, code := target.Completion(err)
	if kind != history.KindInfo || code != history.ErrorBadResponse || !strings.Contains(err.Error(), "a message id of 65537 bytes, more than the 65536") {
		t.Fatalf("recorded %s %q: %v; want info %q naming the limit", kind, code, err, history.ErrorBadResponse)
	}
}

// A 201 without a message id (absent, or "") is no answer of the API:
// ADR-001's ack carries one. Recorded as "", it left a history the check
// refuses (an id is never empty), and read as no id it hid a message
// pushed at another sequence.
func TestASendAnsweredWithoutAMessageIDIsABadResponse(t *testing.T) {
	for _, answer := range []string{`{"sequence":1}`, `{"sequence":1,"message_id":""}`} {
		tgt := openTarget(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			w.Write([]byte(answer))
		}))
		_, err := tgt.Persist(context.Background(), sequencer.Request{Chat: "c", Key: "k", Sender: "u", Content: "hi"}, nil)
		kind, code := target.Completion(err)
		if kind != history.KindInfo || code != history.ErrorBadResponse || !strings.Contains(err.Error(), `without a message id (a string, not empty) at "message_id"`) {
			t.Errorf("%s: recorded %s %q: %v; want info %q", answer, kind, code, err, history.ErrorBadResponse)
		}
	}
}

// A 201 naming another chat or key than the send's acknowledges another
// message: a bad_response, of unknown outcome (a service answering so
// passed, an outside tester's). One that names them as sent is an ack;
// one that names neither, as chatseq's API always does, breaks it.
func TestASendAnsweredForAnotherChatOrKeyIsABadResponse(t *testing.T) {
	for _, c := range []struct{ answer, want string }{
		{`{"chat_id":"other","client_message_id":"k","sequence":1,"message_id":"m"}`, `naming another chat at "chat_id"`},
		{`{"chat_id":"c","client_message_id":"k2","sequence":1,"message_id":"m"}`, `naming another idempotency key at "client_message_id"`},
		{`{"chat_id":"c","client_message_id":"k","sequence":1,"message_id":"m"}`, ""},
		{`{"sequence":1,"message_id":"m"}`, `without the chat, a string, at "chat_id"`},
		{`{"chat_id":"c","sequence":1,"message_id":"m"}`, `without the idempotency key, a string, at "client_message_id"`},
		{`{"chat_id":"c","client_message_id":7,"sequence":1,"message_id":"m"}`, `without the idempotency key, a string, at "client_message_id"`},
	} {
		tgt := openTarget(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			w.Write([]byte(c.answer))
		}))
		out, err := tgt.Persist(context.Background(), sequencer.Request{Chat: "c", Key: "k", Sender: "u", Content: "hi"}, nil)
		if c.want == "" {
			if err != nil || out.Result.Seq != 1 {
				t.Errorf("%s: %v, %+v; want an ack of seq 1", c.answer, err, out)
			}
			continue
		}
		kind, code := target.Completion(err)
		if kind != history.KindInfo || code != history.ErrorBadResponse || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: recorded %s %q: %v; want info %q %s", c.answer, kind, code, err, history.ErrorBadResponse, c.want)
		}
	}
}

// endlessPages answers every page full, its sequences just above after,
// for ever.
type endlessPages struct{ served atomic.Int64 }

func (s *endlessPages) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	after, _ := strconv.ParseUint(r.URL.Query().Get("after"), 10, 64)
	limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
	var b strings.Builder
	b.WriteString(`{"messages":[`)
	for i := range limit {
		if i > 0 {
			b.WriteByte(',')
		}
		seq := after + uint64(i) + 1
		fmt.Fprintf(&b, `{"sequence":%d,"message_id":"m%d","client_message_id":"k%d","sender_id":"u"}`, seq, seq, seq)
	}
	fmt.Fprintf(&b, `],"next_after":%d}`, after+uint64(limit))
	s.served.Add(int64(limit))
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(b.String()))
}

// A service whose final state never ends (every page full, for ever)
// is read no further than far past what the run sent to the chat, and
// the read says so: it read on for ever, holding every page in memory
// (9 GB in five minutes).
func TestAFinalStateThatNeverEndsIsReadNoFurther(t *testing.T) {
	s := &endlessPages{}
	tgt := openTarget(t, s)
	walker := tgt.(store.Walker)
	var got atomic.Int64
	err := walker.Walk(context.Background(), []string{"c"}, store.StateVisitor{Message: func(store.Message) { got.Add(1) }, Counter: func(store.Counter) {}, TablesRead: func(store.Tables) {}})
	if err == nil || !strings.Contains(err.Error(), "far more than the 0 sends made to it") {
		t.Fatalf("walk: %v (%d messages handed over)", err, got.Load())
	}
	if s.served.Load() > 20000 {
		t.Fatalf("the service served %d messages before the read stopped", s.served.Load())
	}
}

// A success to a send other than 200 and 201 that the mapping gives no
// meaning is no ack of the API (bad_response, outcome unknown): a 202
// says the send was accepted, not carried out, and was taken as an ack
// at the sequence its body named. A mapping that gives it a meaning is
// taken at its word.
func TestASuccessTheAPIDoesNotGiveASendIsABadResponse(t *testing.T) {
	answering := func(status int) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			w.Write([]byte(`{"chat_id":"c","client_message_id":"k","sequence":1,"message_id":"m1"}`))
		})
	}
	req := sequencer.Request{Chat: "c", Key: "k", Sender: "u", Content: "hi"}
	for _, status := range []int{http.StatusAccepted, 299} {
		_, err := openTarget(t, answering(status)).Persist(context.Background(), req, nil)
		kind, code := target.Completion(err)
		if kind != history.KindInfo || code != history.ErrorBadResponse || !strings.Contains(err.Error(), fmt.Sprintf("statuses: {%d: ok}", status)) {
			t.Errorf("a send answered %d: recorded %s %q (%v); want info %q saying how to map it", status, kind, code, err, history.ErrorBadResponse)
		}
	}
	for _, status := range []int{http.StatusOK, http.StatusCreated} {
		out, err := openTarget(t, answering(status)).Persist(context.Background(), req, nil)
		if err != nil || out.Seq != 1 {
			t.Errorf("a send answered %d: %+v, %v; want an ack of seq 1", status, out, err)
		}
	}
	api := httptarget.DefaultAPI()
	api.Statuses[http.StatusAccepted] = httptarget.Outcome{Outcome: httptarget.OutcomeOK}
	srv := httptest.NewServer(answering(http.StatusAccepted))
	defer srv.Close()
	base, _ := url.Parse(srv.URL)
	mapped, err := httptarget.Factory(base, api, nil)(context.Background(), bench.DefaultConfig().TargetEnv(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer mapped.Close()
	if out, err := mapped.Persist(context.Background(), req, nil); err != nil || out.Seq != 1 {
		t.Errorf("a 202 the mapping calls ok: %+v, %v; want an ack of seq 1", out, err)
	}
}

// A delivery_state answer past its bound is said to be one: read up to
// the bound and decoded, it read as "unexpected end of JSON input" (an
// outside tester's 10 MB answer).
func TestADeliveryStateAnswerPastItsBoundSaysSo(t *testing.T) {
	tgt := openTarget(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"delivery_state":[` + strings.Repeat(`{"user_id":"u","last_acked_sequence":1},`, 300000) + `{"user_id":"u","last_acked_sequence":1}]}`))
	}))
	ch, err := tgt.(gateway.ChannelServer).PushChannel(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	_, err = ch.DeliveryStates(context.Background(), "c")
	if err == nil || !strings.Contains(err.Error(), "an answer over 4194304 bytes, read no further") {
		t.Fatalf("%v; want the bound named", err)
	}
}

// An answer is one JSON value: a send's answer or a sync page followed by
// a second document or an HTML tail is no answer of the API
// (bad_response), where its first value was read and the rest ignored,
// and an answer naming two sequences passed (an outside tester's).
func TestAnAnswerOfMoreThanOneJSONValueIsABadResponse(t *testing.T) {
	for _, tail := range []string{` <html>oops</html>`, `{"sequence":2,"message_id":"m2"}`, `]`} {
		tgt := openTarget(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			if r.Method == http.MethodGet {
				w.Write([]byte(`{"messages":[{"sequence":1,"message_id":"m1","client_message_id":"k","sender_id":"u","content":"hi"}]}` + tail))
				return
			}
			w.WriteHeader(http.StatusCreated)
			w.Write([]byte(`{"chat_id":"c","client_message_id":"k","sequence":1,"message_id":"m1"}` + tail))
		}))
		_, err := tgt.Persist(context.Background(), sequencer.Request{Chat: "c", Key: "k", Sender: "u", Content: "hi"}, nil)
		if kind, code := target.Completion(err); kind != history.KindInfo || code != history.ErrorBadResponse {
			t.Errorf("send answered with %q after it: recorded %s %q (%v); want info %q", tail, kind, code, err, history.ErrorBadResponse)
		}
		_, err = tgt.Sync(context.Background(), "c", 0, 10)
		if kind, code := target.Completion(err); kind != history.KindFail || code != history.ErrorBadResponse {
			t.Errorf("page with %q after it: recorded %s %q (%v); want fail %q", tail, kind, code, err, history.ErrorBadResponse)
		}
	}
}

// A service that refuses a member the chat was created with as no member
// breaks its API (403 is for a caller who is not one): a bad_response,
// send and sync alike, which fails api_conformance. It passed, every
// refusal a definite failure with no effect (an outside tester's). A
// caller the chat was not created with is refused as the API says.
func TestAMemberRefusedAsNoMemberIsABadResponse(t *testing.T) {
	tgt := openTarget(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodPut {
			w.WriteHeader(http.StatusCreated)
			w.Write([]byte(`{}`))
			return
		}
		w.WriteHeader(http.StatusForbidden)
		w.Write([]byte(`{"error":{"code":"chat.not_a_member","message":"not a member"}}`))
	}))
	creator := tgt.(interface {
		CreateChat(context.Context, string, []string) error
	})
	for _, chat := range []string{"c", "d"} {
		if err := creator.CreateChat(context.Background(), chat, []string{"u", "v", "recv-" + chat}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		sender string
		kind   history.Kind
		code   string
	}{
		{"v", history.KindInfo, history.ErrorBadResponse},
		{"recv-c", history.KindInfo, history.ErrorBadResponse}, // a member of c alone
		{"stranger", history.KindFail, "not_a_member"},
	} {
		_, err := tgt.Persist(context.Background(), sequencer.Request{Chat: "c", Key: "k", Sender: c.sender, Content: "hi"}, nil)
		if kind, code := target.Completion(err); kind != c.kind || code != c.code {
			t.Errorf("a send by %s refused 403: recorded %s %q (%v), want %s %q", c.sender, kind, code, err, c.kind, c.code)
		}
	}
	_, err := tgt.Sync(context.Background(), "c", 0, 10)
	if kind, code := target.Completion(err); kind != history.KindFail || code != history.ErrorBadResponse || !strings.Contains(err.Error(), `as no member (not_a_member), whom the chat was created with`) {
		t.Errorf("a sync by the creator refused 403: recorded %s %q (%v), want fail %q", kind, code, err, history.ErrorBadResponse)
	}
}

// chatseq's requests are well formed, so a 400 refuses one the API must
// take: a bad_response, send and sync alike. A service answering a
// replay of an acknowledged key 400 passed, each a failure with no
// effect (an outside tester's). A mapping whose statuses give 400 a
// meaning takes it as that.
func TestA400ToAWellFormedRequestIsABadResponse(t *testing.T) {
	answer400 := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"error":{"code":"request.invalid","message":"no"}}`))
	})
	tgt := openTarget(t, answer400)
	_, err := tgt.Persist(context.Background(), sequencer.Request{Chat: "c", Key: "k", Sender: "u", Content: "hi"}, nil)
	if kind, code := target.Completion(err); kind != history.KindInfo || code != history.ErrorBadResponse || !strings.Contains(err.Error(), "answered 400 to a request the API allows") {
		t.Errorf("a send answered 400: recorded %s %q (%v)", kind, code, err)
	}
	_, err = tgt.Sync(context.Background(), "c", 0, 10)
	if kind, code := target.Completion(err); kind != history.KindFail || code != history.ErrorBadResponse {
		t.Errorf("a sync answered 400: recorded %s %q (%v)", kind, code, err)
	}

	api := httptarget.DefaultAPI()
	api.Statuses[http.StatusBadRequest] = httptarget.Outcome{Outcome: httptarget.OutcomeFail, Code: "too_long"}
	srv := httptest.NewServer(answer400)
	t.Cleanup(srv.Close)
	base, _ := url.Parse(srv.URL)
	mapped, err := httptarget.Factory(base, api, nil)(context.Background(), bench.DefaultConfig().TargetEnv(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mapped.Close() })
	_, err = mapped.Persist(context.Background(), sequencer.Request{Chat: "c", Key: "k", Sender: "u", Content: "hi"}, nil)
	if kind, code := target.Completion(err); kind != history.KindFail || code != "too_long" {
		t.Errorf("a send answered 400, mapped: recorded %s %q (%v)", kind, code, err)
	}
}
