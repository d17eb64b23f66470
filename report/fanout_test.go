package report

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/sequencer"
)

// receiversConfig is a short run with two receiving devices a chat whose
// connections are dropped on a clock; under drops, the watermark variant
// (ADR-004 as written may rightly fail eventual visibility).
func receiversConfig(dir string) bench.Config {
	cfg := bench.DefaultConfig()
	// The drops end 2 s before the writers (target.LastConnectionOpen).
	cfg.Writers, cfg.Chats, cfg.Rate, cfg.Duration = 4, 4, 400, 3*time.Second
	cfg.Receivers, cfg.DropConnectionsEvery = 2, 500*time.Millisecond
	cfg.Variant = sequencer.SyncWatermark
	cfg.HistoryPath = filepath.Join(dir, HistoryFile)
	return cfg
}

func receiversRun(t *testing.T) *fixtureRun { return fixtureFor(t, "receivers", receiversConfig) }

// A run with receivers saves its fan-out latencies over time and the
// connection drops in results.json, every first receipt counted once, and
// they survive a reload; a run without has neither.
func TestResultsHoldFanOutOverTime(t *testing.T) {
	f := receiversRun(t)
	r := f.saved.Results
	if r.Receivers == nil || r.Receivers.Deliveries == 0 {
		t.Fatalf("receivers %+v, want deliveries", r.Receivers)
	}
	var fan, full int64
	for i, iv := range r.DeliveryIntervals {
		if iv.FanOut != nil {
			fan += iv.FanOut.Count
			if !(iv.FanOut.P50 <= iv.FanOut.P90 && iv.FanOut.P90 <= iv.FanOut.P99 && iv.FanOut.P99 <= iv.FanOut.Max) {
				t.Errorf("interval %d: fan_out percentiles out of order: %+v", i, *iv.FanOut)
			}
		}
		if iv.FullVisibility != nil {
			full += iv.FullVisibility.Count
		}
		if prev := r.DeliveryIntervals[max(i-1, 0)]; i > 0 && math.Abs(iv.Start-(prev.Start+prev.Length)) > 1e-9 {
			t.Errorf("interval %d starts at %gs, not where the one before ends", i, iv.Start)
		}
	}
	if fan != f.res.FanOut.TotalCount() || full != f.res.FullVisibility.TotalCount() || fan == 0 {
		t.Errorf("intervals hold %d fan-out and %d full-visibility values, want the run's %d and %d", fan, full, f.res.FanOut.TotalCount(), f.res.FullVisibility.TotalCount())
	}
	if len(r.ConnectionDrops) == 0 || int64(len(r.ConnectionDrops)) > r.Receivers.Drops {
		t.Errorf("%d connection drops saved for %d device drops, want at least one strike, none more than the drops", len(r.ConnectionDrops), r.Receivers.Drops)
	}
	for _, d := range r.ConnectionDrops {
		if d.End < d.Start || d.Start <= 0 {
			t.Errorf("connection drop %+v: want 0 < start ≤ end", d)
		}
	}
	loaded, err := LoadDir(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(loaded.Results.DeliveryIntervals) != len(r.DeliveryIntervals) || len(loaded.Results.ConnectionDrops) != len(r.ConnectionDrops) {
		t.Errorf("reloaded: %d intervals, %d drops; saved %d, %d", len(loaded.Results.DeliveryIntervals), len(loaded.Results.ConnectionDrops), len(r.DeliveryIntervals), len(r.ConnectionDrops))
	}
	plain := healthyRun(t).saved.Results
	if plain.DeliveryIntervals != nil || plain.ConnectionDrops != nil || plain.Receivers != nil {
		t.Errorf("a run without receivers saved delivery latencies %v, drops %v, receivers %v", plain.DeliveryIntervals, plain.ConnectionDrops, plain.Receivers)
	}
}

// report.html has a fan-out section, its two charts' data and the drops
// to shade, for a run with receivers, and none of it for a run without.
func TestReportShowsFanOutOnlyWithReceivers(t *testing.T) {
	f := receiversRun(t)
	page, err := os.ReadFile(filepath.Join(f.dir, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<section id="fanout">`, `id="chart-fanout"`, `id="chart-full-visibility"`, `href="#fanout"`, "Shaded: connection drops", "<td>fan_out</td>", "<td>full_visibility</td>"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html of a run with receivers lacks %q", want)
		}
	}
	d := newChartData(f.saved.Results, f.saved.latency).Delivery
	if d == nil || len(d.T) != len(f.saved.Results.DeliveryIntervals) || len(d.Drops) != len(f.saved.Results.ConnectionDrops) {
		t.Fatalf("chart data %+v, want one point per delivery interval and every drop", d)
	}
	drawn := 0
	for _, v := range d.FanOut.P99 {
		if v != nil {
			drawn++
		}
	}
	if drawn == 0 {
		t.Error("the fan-out chart has no point")
	}
	if last := f.saved.Results.DeliveryIntervals[len(d.T)-1]; d.End < last.Start+last.Length {
		t.Errorf("the delivery charts end at %gs, before their last interval's end", d.End)
	}

	plain, err := os.ReadFile(filepath.Join(healthyRun(t).dir, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, absent := range []string{`id="fanout"`, `id="chart-fanout"`, `href="#fanout"`, `"delivery":`} {
		if strings.Contains(string(plain), absent) {
			t.Errorf("report.html of a run without receivers has %q", absent)
		}
	}
}
