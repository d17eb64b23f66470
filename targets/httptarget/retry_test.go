package httptarget_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/httpapi"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/target"
	"github.com/chatseq/chatseq/targets/httptarget"
)

// arrival is one send as the fake service saw it.
type arrival struct {
	at  time.Time
	key string
}

// flakyService answers each send with the next of statuses (the last one
// for ever after), 201 with sequence 7 for a 2xx, and a Retry-After of
// retryAfter when it is not "".
type flakyService struct {
	statuses   []int
	retryAfter string
	mu         sync.Mutex
	arrivals   []arrival
}

func (f *flakyService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.arrivals = append(f.arrivals, arrival{at: time.Now(), key: r.Header.Get(httpapi.HeaderIdempotencyKey)})
	status := f.statuses[min(len(f.arrivals), len(f.statuses))-1]
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if status/100 == 2 {
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"chat_id":"c","client_message_id":"` + r.Header.Get(httpapi.HeaderIdempotencyKey) + `","message_id":"msg_7","sequence":7}`))
		return
	}
	if f.retryAfter != "" {
		w.Header().Set(httpapi.HeaderRetryAfter, f.retryAfter)
	}
	w.WriteHeader(status)
	_, _ = w.Write([]byte(`{"error":{"code":"service.unavailable","message":"try later","cause":"store_throttled"}}`))
}

func (f *flakyService) sent() []arrival {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]arrival(nil), f.arrivals...)
}

// persistOnce sends one message through the http target built as a run
// with cfg builds it, and returns what the run's writer records for it.
func persistOnce(t *testing.T, f *flakyService, api *httptarget.API, cfg bench.Config, faults sequencer.FaultPlan) (sequencer.Outcome, history.Kind, string, error) {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	base, _ := url.Parse(srv.URL)
	tgt, err := httptarget.Factory(base, api, nil)(context.Background(), cfg.TargetEnv(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tgt.Close() })
	out, err := tgt.Persist(context.Background(), sequencer.Request{
		Chat: "c", Key: "key-1", Sender: "u1", Content: "hello", Faults: faults,
	}, nil)
	kind, code := target.Completion(err) // what the writer records
	return out, kind, code, err
}

// sameKey fails the test unless every send carried key.
func sameKey(t *testing.T, sent []arrival, key string) {
	t.Helper()
	for i, a := range sent {
		if a.key != key {
			t.Errorf("send %d carried key %q, want %q", i+1, a.key, key)
		}
	}
}

// A service that answers 503 or 429 with Retry-After and then otherwise:
// the target resends with the same key, no sooner than asked, and the run
// records the answer it saw last: the 201, or a 500's unknown outcome.
func TestUnavailableIsRetriedWithTheSameKeyAfterRetryAfter(t *testing.T) {
	for _, c := range []struct {
		name     string
		statuses []int
		want     history.Kind
	}{
		{"503 twice", []int{503, 503, 201}, history.KindOK},
		{"429 once", []int{429, 201}, history.KindOK},
		{"503 then 500", []int{503, 500}, history.KindInfo},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &flakyService{statuses: c.statuses, retryAfter: "1"}
			cfg := bench.DefaultConfig()
			cfg.RetryBackoff = time.Millisecond // far below the Retry-After
			out, kind, code, err := persistOnce(t, f, httptarget.DefaultAPI(), cfg, sequencer.FaultPlan{})
			if kind != c.want {
				t.Fatalf("recorded %s %q (err %v), want %s", kind, code, err, c.want)
			}
			if kind == history.KindOK && (out.Seq != 7 || out.MessageID != "msg_7") {
				t.Errorf("ok with sequence %d, id %q, want 7, msg_7", out.Seq, out.MessageID)
			}
			sent := f.sent()
			if len(sent) != len(c.statuses) {
				t.Fatalf("%d sends, want %d", len(sent), len(c.statuses))
			}
			sameKey(t, sent, "key-1")
			for i := 1; i < len(sent); i++ {
				if gap := sent[i].at.Sub(sent[i-1].at); gap < time.Second {
					t.Errorf("send %d came %s after the answer asking for 1s", i+1, gap)
				}
			}
		})
	}
}

// A service that never stops answering 503: the target sends at most
// MaxStatusAttempts times, backing off exponentially, and the run records
// the last answer as the mapping reads it: fail under the documented API
// (a 503 writes nothing), info under a mapping that says a 503 may have
// written.
func TestUnavailableWithoutEndRecordsTheLastAnswer(t *testing.T) {
	mayHaveWritten, err := httptarget.ParseAPI("m.yaml", []byte("statuses:\n  503: info\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		api  *httptarget.API
		want history.Kind
	}{
		{"documented API", httptarget.DefaultAPI(), history.KindFail},
		{"503 maps to info", mayHaveWritten, history.KindInfo},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &flakyService{statuses: []int{503}}
			cfg := bench.DefaultConfig()
			cfg.RetryBackoff = 10 * time.Millisecond
			_, kind, code, _ := persistOnce(t, f, c.api, cfg, sequencer.FaultPlan{})
			if kind != c.want || code != "store_throttled" {
				t.Errorf("recorded %s %q, want %s store_throttled", kind, code, c.want)
			}
			sent := f.sent()
			if len(sent) != httptarget.MaxStatusAttempts {
				t.Fatalf("%d sends, want %d", len(sent), httptarget.MaxStatusAttempts)
			}
			sameKey(t, sent, "key-1")
			// Waits of 10ms doubling, jittered down to half at most.
			for i := 1; i < len(sent); i++ {
				least := (10 * time.Millisecond << (i - 1)) / 2
				if gap := sent[i].at.Sub(sent[i-1].at); gap < least {
					t.Errorf("retry %d came after %s, want at least %s", i, gap, least)
				}
			}
		})
	}
}

// The budget gives way: the run's --max-attempts when lower, a
// Retry-After beyond MaxRetryWait (a client never retries sooner), and a
// store error the run asked chatseq serve for (that attempt's fault,
// judged as in process).
func TestUnavailableRetryBudget(t *testing.T) {
	storeFault := sequencer.FaultPlan{StoreError: sequencer.StoreFault{Kind: sequencer.StoreThrottled, Call: sequencer.CallAllocate}}
	for _, c := range []struct {
		name        string
		maxAttempts int
		retryAfter  string
		faults      sequencer.FaultPlan
		wantSends   int
	}{
		{"--max-attempts 2", 2, "", sequencer.FaultPlan{}, 2},
		{"Retry-After 60", 20, "60", sequencer.FaultPlan{}, 1},
		// Past what a Duration holds: longer than any wait, never taken
		// as absent or wrapped round into a resend at once (an outside
		// tester's).
		{"Retry-After 10000000000", 20, "10000000000", sequencer.FaultPlan{}, 1},
		{"Retry-After of 30 digits", 20, "999999999999999999999999999999", sequencer.FaultPlan{}, 1},
		{"injected store error", 20, "", storeFault, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &flakyService{statuses: []int{503}, retryAfter: c.retryAfter}
			cfg := bench.DefaultConfig()
			cfg.MaxAttempts, cfg.RetryBackoff = c.maxAttempts, time.Millisecond
			_, kind, _, err := persistOnce(t, f, httptarget.DefaultAPI(), cfg, c.faults)
			if n := len(f.sent()); n != c.wantSends {
				t.Errorf("%d sends, want %d", n, c.wantSends)
			}
			if kind != history.KindFail {
				t.Errorf("recorded %s (%v), want fail", kind, err)
			}
		})
	}
}
