package bench_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/target"
)

// The per-second intervals hold every operation and every latency value the
// run's totals hold, no more, and a timed fault shows in the seconds it
// covers.
func TestIntervalsAddUpToTheRun(t *testing.T) {
	cfg := bench.DefaultConfig()
	cfg.Writers, cfg.Chats, cfg.Duration, cfg.Rate = 4, 4, 2500*time.Millisecond, 400
	cfg.KafkaOff = true
	cfg.Timed = []target.TimedFault{{Kind: target.StoreLatency, At: time.Second, For: time.Second, Latency: 20 * time.Millisecond}}
	cfg.HistoryPath = filepath.Join(t.TempDir(), "h.jsonl")
	var mu sync.Mutex
	var reports []bench.Progress
	cfg.Progress = func(p bench.Progress) {
		mu.Lock()
		reports = append(reports, p)
		mu.Unlock()
	}
	res, err := bench.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	// 2.5 s, and the operations in flight finishing: a last interval
	// shorter than a quarter joins the one before.
	if n := len(res.Intervals); n < 25 || n > 1+int(res.Elapsed/bench.FineInterval) || res.IntervalLength != bench.FineInterval {
		t.Fatalf("%d intervals of %s for %s of writers, want 25 or so of %s", n, res.IntervalLength, res.Elapsed, bench.FineInterval)
	}
	var sum bench.Counts
	for i, iv := range res.Intervals {
		if iv.Start != time.Duration(i)*bench.FineInterval {
			t.Errorf("interval %d starts at %s", i, iv.Start)
		}
		sum.Operations += iv.Counts.Operations
		sum.Persists += iv.Counts.Persists
		sum.Retries += iv.Counts.Retries
		sum.FaultsInjected += iv.Counts.FaultsInjected
	}
	last := res.Intervals[len(res.Intervals)-1]
	if end := last.Start + last.Length; end != res.Elapsed {
		t.Errorf("last interval ends at %s, the run at %s", end, res.Elapsed)
	}
	c := res.Counts
	if sum.Operations != c.Operations || sum.Persists != c.Persists || sum.Retries != c.Retries || sum.FaultsInjected != c.FaultsInjected {
		t.Fatalf("intervals add up to %+v, the run counted ops %d persists %d retries %d faults %d",
			sum, c.Operations, c.Persists, c.Retries, c.FaultsInjected)
	}
	for _, step := range bench.Steps() {
		var n int64
		for _, iv := range res.Intervals {
			n += iv.Latency[step].TotalCount()
		}
		if want := res.Latency[step].TotalCount(); n != want {
			t.Errorf("%s: intervals hold %d values, the run %d", step, n, want)
		}
	}
	// The store-latency window is the second second: its p50 carries the
	// 20 ms delay, the first second's does not.
	within := func(step bench.Step, from, to time.Duration) time.Duration {
		h := bench.NewIntervalHistogram()
		for _, iv := range res.Intervals {
			if iv.Start >= from && iv.Start+iv.Length <= to {
				h.Merge(iv.Latency[step])
			}
		}
		return time.Duration(h.ValueAtPercentile(50))
	}
	before := within(bench.StepPersist, 0, 900*time.Millisecond)
	during := within(bench.StepEndToEnd, 1100*time.Millisecond, 1900*time.Millisecond)
	if before >= 20*time.Millisecond || during < 20*time.Millisecond {
		t.Errorf("persist p50 before the window %s, end-to-end p50 during it %s: want under and over 20ms", before, during)
	}

	mu.Lock()
	defer mu.Unlock()
	if len(reports) < 5 {
		t.Fatalf("%d progress reports in %s, want one every %s", len(reports), res.Elapsed, bench.ProgressEvery)
	}
	final := reports[len(reports)-1]
	if !final.Done || final.Operations != c.Operations {
		t.Fatalf("final progress %+v, want done with %d operations", final, c.Operations)
	}
	sawFault, prev := false, int64(0)
	for _, p := range reports {
		if p.Operations < prev {
			t.Fatalf("operations went back from %d to %d", prev, p.Operations)
		}
		prev = p.Operations
		if len(p.ActiveFaults) == 1 && p.ActiveFaults[0] == "store_latency" { // as schedules name it
			sawFault = true
		}
	}
	if !sawFault {
		t.Error("no progress report named the open store_latency window")
	}
}
