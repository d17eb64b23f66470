package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
)

// A 3-second run draws a line of tenths of a second, not three points;
// its redrawn page (from results.json and the one-second hlog) has the
// same points.
func TestShortRunChartsHaveEnoughPoints(t *testing.T) {
	f := healthyRun(t)
	d := newChartData(f.saved.Results, f.saved.latency)
	if len(d.T) < 30 {
		t.Fatalf("a %.1fs run draws %d points, want at least 30", f.saved.Results.Run.Elapsed, len(d.T))
	}
	loaded, err := LoadDir(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	again := newChartData(loaded.Results, loaded.latency)
	for i, s := range d.Latency {
		a := again.Latency[i]
		for k := range s.P99 {
			if (s.P99[k] == nil) != (a.P99[k] == nil) || (s.P99[k] != nil && *s.P99[k] != *a.P99[k]) {
				t.Fatalf("%s p99 point %d differs between the run's page and the redrawn one", s.Step, k)
			}
		}
	}
	points := 0
	for _, v := range d.Latency[0].P99 {
		if v != nil {
			points++
		}
	}
	if points < len(d.T)/2 {
		t.Errorf("the %s latency line has %d points, want at least half of %d", d.Latency[0].Step, points, len(d.T))
	}
}

// A long run at one-second intervals draws at most maxChartPoints, every
// operation and latency value still counted, from memory and from the
// saved files alike. (The cap is lowered to 100 so that 249 seconds bin by
// 3: an hour's log takes half a minute to write and read back.)
func TestLongRunChartsAreBinned(t *testing.T) {
	defer func(n int) { maxChartPoints = n }(maxChartPoints)
	maxChartPoints = 100
	const seconds = 249
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, HistoryFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res := &bench.Result{Config: bench.DefaultConfig(), Started: time.Unix(1_800_000_000, 0), Elapsed: seconds * time.Second, IntervalLength: time.Second}
	for i := range seconds {
		h := bench.NewIntervalHistogram()
		for v := range 10 {
			_ = h.RecordValue(int64(i+1) * 1000 * int64(v+1))
		}
		res.Intervals = append(res.Intervals, bench.Interval{
			Start: time.Duration(i) * time.Second, Length: time.Second,
			Counts:  bench.Counts{Operations: 10, Persists: 10, OK: 10, ErrorCodes: map[string]int64{}},
			Latency: map[bench.Step]*hdrhistogram.PackedHistogram{bench.StepPersist: h},
		})
	}
	saved, err := SaveRun(dir, res, FromBench(res, "test", checker.Report{}), "")
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]*Saved{"in memory": saved, "loaded": loaded} {
		d := newChartData(s.Results, s.latency)
		if len(d.T) > maxChartPoints || len(d.T) < maxChartPoints/2 {
			t.Fatalf("%s: %ds draw %d points, want at most %d and not far fewer", name, seconds, len(d.T), maxChartPoints)
		}
		var ops float64
		for _, v := range d.Throughput["ops"] {
			ops += *v * (s.Results.Intervals[0].Length * float64(binSize(seconds)))
		}
		if ops != 10*seconds {
			t.Errorf("%s: binned throughput adds up to %.0f operations, want %d", name, ops, 10*seconds)
		}
		persist := d.Latency[0]
		last := persist.Max[len(persist.Max)-1]
		if want := ms(seconds * 10_000); persist.Step != "persist" || last == nil || *last < want || *last > want*1.001 {
			t.Errorf("%s: the last bin's persist max is %v, want the run's last value %gms", name, last, want)
		}
	}

	// A results.json written before intervals carried their percentiles
	// (no interval_s) draws its points from the log's seconds.
	maxChartPoints = 1000
	data, err := os.ReadFile(filepath.Join(dir, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc, "interval_s")
	for _, iv := range doc["intervals"].([]any) {
		delete(iv.(map[string]any), "latency")
	}
	if data, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ResultsFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	old, err := LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	d := newChartData(old.Results, old.latency)
	persist := d.Latency[0]
	if len(d.T) != seconds || persist.P50[seconds-1] == nil || *persist.P50[seconds-1] < ms(seconds*5_000) {
		t.Fatalf("an older results.json: %d points, the last persist p50 %v; want %d points from the log", len(d.T), persist.P50[seconds-1], seconds)
	}
}
