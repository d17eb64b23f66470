package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/httpapi"
	"github.com/chatseq/chatseq/metrics"
)

// chatseq serve --metrics-addr: every send and sync the server answers is
// counted under ADR-004 §12's names and the run's own.
func TestServeCountsWhatItAnswers(t *testing.T) {
	e := metrics.New()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := httpapi.Start(ctx, httpapi.ServeOptions{Target: "memory", Listen: "127.0.0.1:0", RepublishOnReplay: true, Seed: 1, Metrics: e})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	do := func(method, path, key, body string) int {
		req, _ := http.NewRequest(method, "http://"+srv.Addr+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
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
	do("PUT", "/v1/chats/c", "", `{"members":["u"]}`)
	do("POST", "/v1/chats/c/messages", "k1", `{"sender_id":"u","content":"x"}`)
	do("POST", "/v1/chats/c/messages", "k1", `{"sender_id":"u","content":"x"}`) // a retry: step 1 answers
	do("DELETE", "/v1/chats/c/counter", "", "")
	if code := do("POST", "/v1/chats/c/messages", "k2", `{"sender_id":"u","content":"y"}`); code < 400 {
		t.Fatalf("a send with the counter gone answered %d", code)
	}
	do("GET", "/v1/chats/c/messages?after=0", "", "")

	got := map[string]float64{}
	fams, err := e.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		for _, m := range f.Metric {
			key := f.GetName()
			for _, l := range m.Label {
				key += "/" + l.GetValue()
			}
			switch {
			case m.Counter != nil:
				got[key] = m.Counter.GetValue()
			case m.Gauge != nil:
				got[key] = m.Gauge.GetValue()
			}
		}
	}
	for name, want := range map[string]float64{
		"chatseq_operations_total/persist/ok":   2,
		"chatseq_operations_total/persist/fail": 1,
		"chatseq_operations_total/sync/ok":      1,
		"idempotency_requests_total":            3,
		"idempotency_hits_total":                1,
		"sequence_allocations_total":            1,
		"sequences_persisted_total":             1,
		"counter_missing_errors_total":          1,
		"sequence_allocation_errors_total":      1,
		"chatseq_runs_active":                   1,
	} {
		if got[name] != want {
			t.Errorf("%s = %g, want %g", name, got[name], want)
		}
	}
}
