package httpapi_test

import (
	"context"
	"net/http"
	"testing"

	pgfixture "github.com/chatseq/chatseq/fixtures/postgres"
	"github.com/chatseq/chatseq/internal/serve"
	"github.com/chatseq/chatseq/metrics"
	"github.com/chatseq/chatseq/targets"
	"github.com/chatseq/chatseq/targets/ledger"
	"github.com/chatseq/chatseq/targets/postgres"
)

// chatseq serve --metrics-addr: every send and sync the server answers is
// counted under ADR-004 §12's names and the run's own.
func TestServeCountsWhatItAnswers(t *testing.T) {
	e := metrics.New()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := serve.Start(ctx, serve.Options{Target: "memory", Listen: "127.0.0.1:0", RepublishOnReplay: true, Seed: 1, Metrics: e, TestHooks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	do := apiStatus(t, http.DefaultClient, "http://"+srv.Addr)
	do("PUT", "/v1/chats/c", "", `{"members":["u"]}`)
	do("POST", "/v1/chats/c/messages", "k1", `{"sender_id":"u","content":"x"}`)
	do("POST", "/v1/chats/c/messages", "k1", `{"sender_id":"u","content":"x"}`) // a retry: step 1 answers
	do("DELETE", "/v1/chats/c/counter", "", "")
	if code := do("POST", "/v1/chats/c/messages", "k2", `{"sender_id":"u","content":"y"}`); code < 400 {
		t.Fatalf("a send with the counter gone answered %d", code)
	}
	do("GET", "/v1/chats/c/messages?after=0", "", "")

	got := gathered(t, e)
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

// gathered is every metric e exports, by name and label values ("a/b"); a
// histogram by its sample count.
func gathered(t *testing.T, e *metrics.Exporter) map[string]float64 {
	t.Helper()
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
			case m.Histogram != nil:
				got[key] = float64(m.Histogram.GetSampleCount())
			}
		}
	}
	return got
}

// chatseq serve over the other designs counts the steps each has: the
// PostgreSQL outbox's idempotency look-up, sequence increment and
// transaction, the ledger's leader cache and the log entry whose apply
// assigns the sequence.
func TestServeCountsTheStepsOfEveryDesign(t *testing.T) {
	cluster := pgfixture.StartForTest(t)
	for _, c := range []struct {
		target string
		open   targets.Options
		// deleteCounter: the design has a counter row to delete, and a
		// send then fails allocating.
		deleteCounter bool
	}{
		{target: postgres.Name, open: targets.Options{DSN: cluster.DSN()}, deleteCounter: true},
		{target: ledger.Name},
	} {
		t.Run(c.target, func(t *testing.T) {
			e := metrics.New()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			srv, err := serve.Start(ctx, serve.Options{Target: c.target, Open: c.open, Listen: "127.0.0.1:0", Seed: 1, Metrics: e, TestHooks: true})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			do := apiStatus(t, http.DefaultClient, "http://"+srv.Addr)
			if code := do("PUT", "/v1/chats/c", "", `{"members":["u"]}`); code != http.StatusCreated {
				t.Fatalf("creating the chat answered %d", code)
			}
			for _, key := range []string{"k1", "k1", "k2"} { // the second k1 is a retry: a hit
				if code := do("POST", "/v1/chats/c/messages", key, `{"sender_id":"u","content":"x"}`); code != http.StatusCreated {
					t.Fatalf("send %s answered %d", key, code)
				}
			}
			want := map[string]float64{
				"idempotency_requests_total":          3,
				"idempotency_hits_total":              1,
				"sequence_allocations_total":          2,
				"sequence_allocation_latency_seconds": 2,
				"sequences_persisted_total":           2,
				"transactions_total":                  2,
				"transaction_conflicts_total":         0,
				"sequence_allocation_errors_total":    0,
			}
			if c.deleteCounter {
				do("DELETE", "/v1/chats/c/counter", "", "")
				if code := do("POST", "/v1/chats/c/messages", "k3", `{"sender_id":"u","content":"y"}`); code < 400 {
					t.Fatalf("a send with the counter gone answered %d", code)
				}
				want["idempotency_requests_total"]++
				want["sequence_allocation_errors_total"]++
				want["counter_missing_errors_total"] = 1
			}
			got := gathered(t, e)
			for name, w := range want {
				if got[name] != w {
					t.Errorf("%s = %g, want %g", name, got[name], w)
				}
			}
		})
	}
}
