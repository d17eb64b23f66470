package bench_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/metrics"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/target"
)

// gathered is one scrape: sample values by metric name and label values.
type gathered map[string]float64

func gather(t *testing.T, e *metrics.Exporter) gathered {
	t.Helper()
	fams, err := e.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	g := gathered{}
	for _, f := range fams {
		for _, m := range f.Metric {
			key := f.GetName()
			for _, l := range m.Label {
				key += "/" + l.GetValue()
			}
			g[key] = sampleValue(m)
		}
	}
	return g
}

func sampleValue(m *dto.Metric) float64 {
	switch {
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	case m.Histogram != nil:
		return float64(m.Histogram.GetSampleCount())
	}
	return 0
}

// The live metrics are there while the writers run, and once the run is
// over they agree exactly with what the run counted itself and what the
// store holds: every sequence allocated (the counters' sum), every one
// persisted (the messages).
func TestLiveMetricsAgreeWithTheRun(t *testing.T) {
	e := metrics.New()
	cfg := bench.DefaultConfig()
	cfg.Writers, cfg.Chats, cfg.Duration = 4, 8, 600*time.Millisecond
	cfg.KafkaOff = true
	cfg.Faults = bench.FaultRates{StaleRead: 0.1, CrashAfterAllocate: 0.05, CrashInPersist: 0.05, CrashAfterPersist: 0.05, PublishFail: 0.05}
	cfg.DuplicateAfterOK, cfg.ConcurrentDuplicate, cfg.SyncRatio = 0.1, 0.1, 0.15
	cfg.HistoryPath = filepath.Join(t.TempDir(), "history.jsonl")
	cfg.Metrics = e
	var once sync.Once
	var during gathered
	cfg.Progress = func(p bench.Progress) {
		if !p.Done && p.Operations > 0 {
			once.Do(func() { during = gather(t, e) })
		}
	}
	res, err := bench.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if during == nil {
		t.Fatal("no progress report while the writers ran")
	}
	if during["chatseq_runs_active"] != 1 || during["chatseq_phase/writers"] != 1 || during["chatseq_operations_total/persist/ok"] == 0 {
		t.Errorf("while the writers ran: runs %g, phase writers %g, ok persists %g", during["chatseq_runs_active"], during["chatseq_phase/writers"], during["chatseq_operations_total/persist/ok"])
	}

	after := gather(t, e)
	c := res.Counts
	persists := after["chatseq_operations_total/persist/ok"] + after["chatseq_operations_total/persist/fail"] + after["chatseq_operations_total/persist/info"]
	for _, x := range []struct {
		name      string
		got, want float64
	}{
		{"ok persists", after["chatseq_operations_total/persist/ok"], float64(c.PersistOK)},
		{"persists", persists, float64(c.Persists)},
		{"syncs", after["chatseq_operations_total/sync/ok"], float64(c.SyncOK)},
		{"dedup answers", after["chatseq_dedup_answers_total"], float64(c.Dedup)},
		{"faults injected", after["chatseq_faults_injected_total"], float64(c.FaultsInjected)},
		{"crashes after allocating", after["chatseq_errors_total/crash_after_allocate"], float64(c.ErrorCodes[sequencer.CodeCrashAfterAllocate])},
		{"idempotency requests", after["idempotency_requests_total"], float64(c.Persists)},
		{"sequences allocated", after["sequence_allocations_total"], float64(res.Allocations)},
		{"allocation latencies", after["sequence_allocation_latency_seconds"], float64(res.Allocations)},
		{"sequences persisted", after["sequences_persisted_total"], float64(res.Persisted)},
		{"runs active", after["chatseq_runs_active"], 0},
	} {
		if x.got != x.want {
			t.Errorf("%s: metrics %g, the run %g", x.name, x.got, x.want)
		}
	}
	if hits := after["idempotency_hits_total"]; hits == 0 || hits >= float64(c.Dedup) {
		// Every step 1 hit is a dedup answer; races and stale reads
		// dedup at step 4 instead.
		t.Errorf("step 1 hits %g with %d dedup answers: want some, fewer than the dedups", hits, c.Dedup)
	}
	if after["transaction_conflicts_total"] == 0 || after["sequence_gap_rate"] == 0 {
		t.Errorf("conflicts %g, gap rate %g: stale reads and races lose step 4's condition, crashes leave gaps",
			after["transaction_conflicts_total"], after["sequence_gap_rate"])
	}
}

// A scheduled counter deletion shows as counter_missing_errors.
func TestLiveMetricsCountCounterMissing(t *testing.T) {
	e := metrics.New()
	cfg := bench.DefaultConfig()
	cfg.Writers, cfg.Chats, cfg.Duration, cfg.KafkaOff = 2, 2, 400*time.Millisecond, true
	cfg.Faults = bench.FaultRates{}
	cfg.DuplicateAfterOK, cfg.ConcurrentDuplicate = 0, 0
	cfg.Timed = []target.TimedFault{{Kind: target.DeleteCounter, At: 100 * time.Millisecond, Chat: 1}}
	cfg.HistoryPath = filepath.Join(t.TempDir(), "history.jsonl")
	cfg.Metrics = e
	res, err := bench.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := gather(t, e)
	want := float64(res.Counts.ErrorCodes[sequencer.CodeCounterMissing])
	if want == 0 || g["counter_missing_errors_total"] != want || g["sequence_allocation_errors_total"] != want {
		t.Errorf("counter_missing_errors %g, allocation errors %g; the run saw %g counter_missing", g["counter_missing_errors_total"], g["sequence_allocation_errors_total"], want)
	}
}
