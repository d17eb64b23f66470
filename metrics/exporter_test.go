package metrics

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/chatseq/chatseq/sequencer"
)

// scrape fetches the endpoint at addr in Prometheus' text format.
func scrape(t *testing.T, addr string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get("http://" + addr + Path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

// value is the sample of name whose labels include want (name=value pairs).
func value(t *testing.T, fams map[string]*dto.MetricFamily, name string, want ...string) float64 {
	t.Helper()
	fam, ok := fams[name]
	if !ok {
		t.Fatalf("no metric %s", name)
	}
	for _, m := range fam.Metric {
		if hasLabels(m, want) {
			switch {
			case m.Counter != nil:
				return m.Counter.GetValue()
			case m.Gauge != nil:
				return m.Gauge.GetValue()
			}
		}
	}
	t.Fatalf("no sample of %s with labels %v", name, want)
	return 0
}

func hasLabels(m *dto.Metric, want []string) bool {
	for i := 0; i+1 < len(want); i += 2 {
		found := false
		for _, l := range m.Label {
			found = found || (l.GetName() == want[i] && l.GetValue() == want[i+1])
		}
		if !found {
			return false
		}
	}
	return true
}

func ms(d float64) int64 { return int64(d * float64(time.Millisecond)) }

// A run's operations reach the endpoint under ADR-004 §12's names, with
// §12's idempotency hit rate (step 1 hits over requests) apart from
// chatseq's dedup rate (dedup answers over ok persists).
func TestServedMetricsCountARunsOperations(t *testing.T) {
	e := New()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, err := e.Serve(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tally := NewTally(2)
	ops := []Op{
		// Two new messages in chat 0, one in chat 1, allocated in 1ms, 2ms, 80ms.
		{Outcome: OK, Chat: 0, Allocated: true, AllocateNanos: ms(1), Steps: sequencer.StepEvents{Transactions: 1, Committed: true}},
		{Outcome: OK, Chat: 0, Allocated: true, AllocateNanos: ms(2), Steps: sequencer.StepEvents{Transactions: 1, Committed: true}},
		{Outcome: OK, Chat: 1, Allocated: true, AllocateNanos: ms(80), Steps: sequencer.StepEvents{Transactions: 1, Committed: true}},
		// A retry answered at step 1.
		{Outcome: OK, Chat: 0, Dedup: true, Steps: sequencer.StepEvents{IdempotencyHit: true}},
		// A crash after allocating: a gap.
		{Outcome: Info, Code: sequencer.CodeCrashAfterAllocate, Faulted: true, Chat: 1, Allocated: true, AllocateNanos: ms(1)},
		// A lost race: allocated, its step 4 condition failed, answered the original.
		{Outcome: OK, Chat: 0, Dedup: true, Allocated: true, AllocateNanos: ms(1), Steps: sequencer.StepEvents{Transactions: 1, Conflicts: 1}},
		// The counter is gone.
		{Outcome: Fail, Code: sequencer.CodeCounterMissing, Chat: 1, Steps: sequencer.StepEvents{AllocateFailed: true}},
		{Sync: true, Outcome: OK, Chat: 1},
	}
	for i := range ops {
		tally.Add(&ops[i])
	}
	detach := e.Attach(2, func(dst *Tally) { tally.AddTo(dst) }, func() map[string]bool { return map[string]bool{"kafka_outage": true} })
	e.SetPhase("writers")

	fams := scrape(t, addr)
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"chatseq_operations_total", []string{"op", "persist", "outcome", "ok"}, 5},
		{"chatseq_operations_total", []string{"op", "persist", "outcome", "info"}, 1},
		{"chatseq_operations_total", []string{"op", "persist", "outcome", "fail"}, 1},
		{"chatseq_operations_total", []string{"op", "sync", "outcome", "ok"}, 1},
		{"chatseq_dedup_answers_total", nil, 2},
		{"chatseq_dedup_rate", nil, 2.0 / 5},
		{"chatseq_errors_total", []string{"code", "counter_missing"}, 1},
		{"chatseq_faults_injected_total", nil, 1},
		{"chatseq_fault_window_active", []string{"fault", "kafka_outage"}, 1},
		{"chatseq_phase", []string{"phase", "writers"}, 1},
		{"chatseq_runs_active", nil, 1},
		{"sequence_allocations_total", nil, 5},
		{"sequence_allocation_errors_total", nil, 1},
		{"counter_missing_errors_total", nil, 1},
		{"idempotency_requests_total", nil, 7},
		{"idempotency_hits_total", nil, 1},
		{"idempotency_hit_rate", nil, 1.0 / 7},
		{"sequences_persisted_total", nil, 3},
		{"sequence_gap_rate", nil, 2.0 / 5},
		{"transactions_total", nil, 4},
		{"transaction_conflicts_total", nil, 1},
		{"transaction_conflict_rate", nil, 1.0 / 4},
	} {
		if got := value(t, fams, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %g, want %g", c.name, c.labels, got, c.want)
		}
	}
	h := fams["sequence_allocation_latency_seconds"].Metric[0].Histogram
	if h.GetSampleCount() != 5 {
		t.Errorf("allocation latency count %d, want 5", h.GetSampleCount())
	}
	for _, b := range h.Bucket {
		want := map[float64]uint64{0.001: 3, 0.0025: 4, 0.05: 4, 0.1: 5}[b.GetUpperBound()]
		if want > 0 && b.GetCumulativeCount() != want {
			t.Errorf("allocations within %gs: %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), want)
		}
	}
	if got := value(t, fams, "messages_per_chat_per_minute"); got <= 0 {
		t.Errorf("messages_per_chat_per_minute = %g with new messages since the run began", got)
	}

	// Once the run ends its counts stay, and counters keep adding up over
	// the runs that follow.
	detach()
	next := NewTally(1)
	next.Add(&Op{Outcome: Fail, Code: sequencer.CodeCounterMissing, Steps: sequencer.StepEvents{AllocateFailed: true}})
	rec := e.NewRecorder(1)
	rec.Record(&Op{Outcome: Fail, Code: sequencer.CodeCounterMissing, Steps: sequencer.StepEvents{AllocateFailed: true}})
	fams = scrape(t, addr)
	if got := value(t, fams, "counter_missing_errors_total"); got != 2 {
		t.Errorf("counter_missing_errors_total after a second run = %g, want 2", got)
	}
	if got := value(t, fams, "chatseq_operations_total", "op", "persist", "outcome", "ok"); got != 5 {
		t.Errorf("ok persists after the first run ended = %g, want 5", got)
	}
	rec.Close()
	if got := value(t, scrape(t, addr), "chatseq_runs_active"); got != 0 {
		t.Errorf("chatseq_runs_active = %g after every run ended", got)
	}
}

// Prometheus asks for OpenMetrics first: counters keep their _total names
// and the exposition ends as the format requires.
func TestServedMetricsSpeakOpenMetrics(t *testing.T) {
	e := New()
	ctx, cancel := context.WithCancel(context.Background())
	addr, err := e.Serve(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", "http://"+addr+Path, nil)
	req.Header.Set("Accept", "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	text := string(body)
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/openmetrics-text") ||
		!strings.Contains(text, "\n# TYPE counter_missing_errors counter\n") ||
		!strings.Contains(text, "\ncounter_missing_errors_total 0.0\n") || !strings.HasSuffix(text, "# EOF\n") {
		t.Errorf("OpenMetrics scrape (%s):\n%s", resp.Header.Get("Content-Type"), text)
	}
	cancel()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := http.Get("http://" + addr + Path); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the endpoint still serves after its context ended")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestServeRefusesAnAddressInUse(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, err := New().Serve(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New().Serve(ctx, addr); err == nil || !strings.Contains(err.Error(), "address already in use") {
		t.Errorf("a second endpoint on %s: %v, want address already in use", addr, err)
	}
}

// The metric names and help pass Prometheus' linter.
func TestMetricsPassPromlint(t *testing.T) {
	e := New()
	tally := NewTally(1)
	tally.Add(&Op{Outcome: Fail, Code: "store_throttled"})
	e.Attach(1, func(dst *Tally) { tally.AddTo(dst) }, nil)
	e.CheckFinished(map[string]int{"pass": 3})
	problems, err := testutil.CollectAndLint(e)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
}

// messages_per_chat_per_minute is the hottest chat's rate over the last
// minute, not since the run began.
func TestHottestChatOverTheLastMinute(t *testing.T) {
	var w chatWindow
	t0 := time.Unix(1000, 0)
	w.start(t0, 2)
	// 30 s in: chat 1 took 50 messages.
	if got := w.perMinute(t0.Add(30*time.Second), []int64{10, 50}); got != 100 {
		t.Errorf("after 30s: %g, want 100 a minute", got)
	}
	// Snapshots every second for two minutes, chat 1 getting 2 a second
	// in the first, then none; chat 0 one a second throughout.
	var got float64
	for s := 31; s <= 150; s++ {
		c1 := int64(50 + 2*min(s-30, 30))
		got = w.perMinute(t0.Add(time.Duration(s)*time.Second), []int64{10 + int64(s-30), c1})
	}
	if got < 59 || got > 61 {
		t.Errorf("after 150s: %g, want about 60 a minute (chat 0's; chat 1 went quiet a minute ago)", got)
	}
	if n := len(w.snaps); n > 62 {
		t.Errorf("the window keeps %d snapshots, want about one a second of the last minute", n)
	}
}
