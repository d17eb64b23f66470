package dynamostore

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/chatseq/chatseq/store"
)

// fakeDynamo answers DynamoDB API calls with scripted responses, to drive
// the failures DynamoDB Local never produces (throttling, 5xx, hangs, dropped
// connections) through the real SDK stack.
type fakeDynamo struct {
	mu      sync.Mutex
	script  []fakeResponse // the last one repeats
	calls   int
	targets []string
	bodies  []map[string]any
}

type fakeResponse struct {
	status  int
	errType string // DynamoDB error code; empty for a success body
	body    string // raw body; overrides errType
	hang    bool   // never answer
	drop    bool   // close the connection without answering
}

func (f *fakeDynamo) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	f.mu.Lock()
	resp := f.script[min(f.calls, len(f.script)-1)]
	f.calls++
	f.targets = append(f.targets, r.Header.Get("X-Amz-Target"))
	f.bodies = append(f.bodies, body)
	f.mu.Unlock()
	switch {
	case resp.hang:
		<-r.Context().Done()
		return
	case resp.drop:
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.WriteHeader(resp.status)
	switch {
	case resp.body != "":
		io.WriteString(w, resp.body)
	case resp.errType != "":
		json.NewEncoder(w).Encode(map[string]string{
			"__type":  "com.amazonaws.dynamodb.v20120810#" + resp.errType,
			"message": "scripted " + resp.errType,
		})
	}
}

func (f *fakeDynamo) callCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// fakeStore returns a Store whose client talks to a fakeDynamo, retrying up
// to maxAttempts times with no backoff (to keep tests fast).
func fakeStore(t *testing.T, maxAttempts int, script ...fakeResponse) (*Store, *fakeDynamo) {
	t.Helper()
	fake := &fakeDynamo{script: script}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	client, err := NewClient(context.Background(), ClientOptions{Endpoint: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	client = dynamodb.New(client.Options(), func(o *dynamodb.Options) {
		o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
			so.MaxAttempts = maxAttempts
			so.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
		})
	})
	return New(client, Prefixed("fake_")), fake
}

var ok200 = func(body string) fakeResponse { return fakeResponse{status: 200, body: body} }

func TestErrorClassification(t *testing.T) {
	type call func(ctx context.Context, s *Store) error
	increment := func(ctx context.Context, s *Store) error { _, err := s.IncrementCounter(ctx, "c"); return err }
	getItem := func(ctx context.Context, s *Store) error {
		_, _, err := s.GetIdempotency(ctx, "c", "k", false)
		return err
	}
	transact := func(ctx context.Context, s *Store) error {
		rec, msg := store.IdempotencyRecord{Chat: "c", Key: "k"}, store.Message{Chat: "c", Seq: 1}
		return s.TransactWrite(ctx, []store.TxItem{{PutIdempotency: &rec, Condition: store.IfAbsent}, {PutMessage: &msg}})
	}
	cases := []struct {
		name    string
		call    call
		resp    fakeResponse
		unknown string // expected UnknownOutcomeError code; "" means definite
	}{
		{"throttling", increment, fakeResponse{status: 400, errType: "ThrottlingException"}, CodeThrottled},
		{"provisioned throughput", getItem, fakeResponse{status: 400, errType: "ProvisionedThroughputExceededException"}, CodeThrottled},
		{"request limit", transact, fakeResponse{status: 400, errType: "RequestLimitExceeded"}, CodeThrottled},
		{"internal server error", increment, fakeResponse{status: 500, errType: "InternalServerError"}, CodeServerError},
		{"bare 503", transact, fakeResponse{status: 503}, CodeServerError},
		{"transaction in progress", transact, fakeResponse{status: 400, errType: "TransactionInProgressException"}, CodeTransactionInProgress},
		{"dropped connection", increment, fakeResponse{drop: true}, CodeConnection},
		{"validation", increment, fakeResponse{status: 400, errType: "ValidationException"}, ""},
		{"resource not found", getItem, fakeResponse{status: 400, errType: "ResourceNotFoundException"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := fakeStore(t, 1, tc.resp)
			err := tc.call(context.Background(), s)
			var uo *store.UnknownOutcomeError
			isUnknown := errors.As(err, &uo)
			switch {
			case err == nil:
				t.Fatal("call succeeded")
			case tc.unknown == "" && isUnknown:
				t.Fatalf("error %v classified unknown (%s), want definite", err, uo.Code)
			case tc.unknown != "" && !isUnknown:
				t.Fatalf("error %v (%T) is definite, want UnknownOutcomeError %s", err, err, tc.unknown)
			case tc.unknown != "" && uo.Code != tc.unknown:
				t.Fatalf("UnknownOutcomeError code %q, want %q (%v)", uo.Code, tc.unknown, err)
			}
		})
	}
}

func TestTimeoutIsUnknownOutcome(t *testing.T) {
	s, _ := fakeStore(t, 1, fakeResponse{hang: true})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := s.IncrementCounter(ctx, "c")
	var uo *store.UnknownOutcomeError
	if !errors.As(err, &uo) || uo.Code != CodeTimeout {
		t.Fatalf("IncrementCounter past its deadline: %v, want UnknownOutcomeError timeout", err)
	}
}

// A refused connection never carried the request: definitely not applied.
func TestRefusedConnectionIsDefinite(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	client, err := NewClient(context.Background(), ClientOptions{Endpoint: "http://" + addr, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(client, Prefixed("x_")).IncrementCounter(context.Background(), "c")
	var uo *store.UnknownOutcomeError
	if err == nil || errors.As(err, &uo) {
		t.Fatalf("IncrementCounter against a closed port: %v, want a definite error", err)
	}
}

func TestConditionFailuresMapToStoreErrors(t *testing.T) {
	ccf := fakeResponse{status: 400, errType: "ConditionalCheckFailedException"}
	s, _ := fakeStore(t, 1, ccf)
	if _, err := s.IncrementCounter(context.Background(), "c"); !errors.Is(err, store.ErrCounterMissing) {
		t.Errorf("IncrementCounter on ConditionalCheckFailed: %v, want ErrCounterMissing", err)
	}
	if err := s.PutCounter(context.Background(), store.Counter{Chat: "c"}, store.IfAbsent); !errors.Is(err, store.ErrConditionFailed) {
		t.Errorf("PutCounter(IfAbsent) on ConditionalCheckFailed: %v, want ErrConditionFailed", err)
	}
}

func TestCancellationReasonsAreDecodedInOrder(t *testing.T) {
	canceled := func(codes ...string) fakeResponse {
		var reasons []map[string]string
		for _, c := range codes {
			reasons = append(reasons, map[string]string{"Code": c})
		}
		b, _ := json.Marshal(map[string]any{
			"__type":              "com.amazonaws.dynamodb.v20120810#TransactionCanceledException",
			"Message":             "Transaction cancelled",
			"CancellationReasons": reasons,
		})
		return fakeResponse{status: 400, body: string(b)}
	}
	rec, msg := store.IdempotencyRecord{Chat: "c", Key: "k"}, store.Message{Chat: "c", Seq: 1}
	items := []store.TxItem{{PutIdempotency: &rec, Condition: store.IfAbsent}, {PutMessage: &msg}}
	for _, want := range [][]string{
		{store.ReasonConditionalCheckFailed, store.ReasonNone},
		{store.ReasonNone, store.ReasonTransactionConflict},
	} {
		s, _ := fakeStore(t, 1, canceled(want...))
		err := s.TransactWrite(context.Background(), items)
		var tce *store.TransactionCanceledError
		if !errors.As(err, &tce) || !slices.Equal(tce.Reasons, want) {
			t.Errorf("TransactWrite canceled with %v: got %v", want, err)
		}
	}
	s, _ := fakeStore(t, 1, canceled(store.ReasonConditionalCheckFailed, store.ReasonNone))
	if err := s.CreateChat(context.Background(), "c", []string{"alice"}); !errors.Is(err, store.ErrChatExists) {
		t.Errorf("CreateChat canceled on the counter: %v, want ErrChatExists", err)
	}
}

// The counter ADD is not idempotent: the SDK must not retry it after an
// attempt that may have applied, or a hidden allocation leaves an
// unexplained gap. Rejections that applied nothing are retried.
func TestIncrementCounterRetriesOnlyWhatCertainlyDidNotApply(t *testing.T) {
	success := ok200(`{"Attributes":{"sequence_counter":{"N":"7"}}}`)

	s, fake := fakeStore(t, 3, fakeResponse{status: 500, errType: "InternalServerError"}, success)
	_, err := s.IncrementCounter(context.Background(), "c")
	var uo *store.UnknownOutcomeError
	if !errors.As(err, &uo) || uo.Code != CodeServerError {
		t.Errorf("IncrementCounter after a 500: %v, want UnknownOutcomeError server_error", err)
	}
	if n := fake.callCount(); n != 1 {
		t.Errorf("IncrementCounter was sent %d times after a 500, want 1 (no retry)", n)
	}

	s, fake = fakeStore(t, 3, fakeResponse{status: 400, errType: "ThrottlingException"}, success)
	seq, err := s.IncrementCounter(context.Background(), "c")
	if err != nil || seq != 7 {
		t.Errorf("IncrementCounter after one throttle = %d, %v; want 7, nil", seq, err)
	}
	if n := fake.callCount(); n != 2 {
		t.Errorf("IncrementCounter was sent %d times, want 2 (one retry after the throttle)", n)
	}
}

// TransactWriteItems is made idempotent by its ClientRequestToken, so the SDK
// may retry it after a 5xx: the retry carries the same token.
func TestTransactWriteRetriesWithTheSameToken(t *testing.T) {
	s, fake := fakeStore(t, 3, fakeResponse{status: 500, errType: "InternalServerError"}, ok200(`{}`))
	rec := store.IdempotencyRecord{Chat: "c", Key: "k"}
	if err := s.TransactWrite(context.Background(), []store.TxItem{{PutIdempotency: &rec, Condition: store.IfAbsent}}); err != nil {
		t.Fatalf("TransactWrite after one 500: %v", err)
	}
	if len(fake.bodies) != 2 {
		t.Fatalf("TransactWriteItems sent %d times, want 2", len(fake.bodies))
	}
	first, second := fake.bodies[0]["ClientRequestToken"], fake.bodies[1]["ClientRequestToken"]
	if first == nil || first != second {
		t.Fatalf("ClientRequestToken %v then %v, want one token on both attempts", first, second)
	}
}
