package metrics

import (
	"math"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// Every receipt is observed in chatseq_fanout_seconds, a chat's last
// device's also in chatseq_full_visibility_seconds; every run of the
// process shares the two series, and they pass Prometheus' linter.
func TestDeliveryHistogramsObserveReceipts(t *testing.T) {
	var none *Exporter
	if none.Delivery() != nil {
		t.Fatal("a nil exporter has delivery histograms")
	}
	none.Delivery().Receipt(time.Second, true) // a nil Delivery observes nothing, without panicking

	e := New()
	d := e.Delivery()
	if e.Delivery() != d {
		t.Fatal("a second run got other delivery histograms: the series would be registered twice")
	}
	d.Receipt(3*time.Millisecond, false)
	d.Receipt(20*time.Millisecond, true)
	e.Delivery().Receipt(2*time.Second, false)

	srv := httptest.NewServer(promhttp.HandlerFor(e.Gatherer(), promhttp.HandlerOpts{}))
	defer srv.Close()
	fams := scrape(t, srv.Listener.Addr().String())
	for name, want := range map[string]struct {
		count  uint64
		sum    float64
		le10ms uint64
	}{
		"chatseq_fanout_seconds":          {3, 2.023, 1},
		"chatseq_full_visibility_seconds": {1, 0.020, 0},
	} {
		fam, ok := fams[name]
		if !ok || len(fam.Metric) != 1 || fam.Metric[0].Histogram == nil {
			t.Fatalf("no histogram %s in the scrape", name)
		}
		h := fam.Metric[0].Histogram
		if h.GetSampleCount() != want.count || math.Abs(h.GetSampleSum()-want.sum) > 1e-9 {
			t.Errorf("%s: count %d, sum %g; want %d, %g", name, h.GetSampleCount(), h.GetSampleSum(), want.count, want.sum)
		}
		for _, b := range h.Bucket {
			if b.GetUpperBound() == 0.01 && b.GetCumulativeCount() != want.le10ms {
				t.Errorf("%s: %d receipts within 10ms, want %d", name, b.GetCumulativeCount(), want.le10ms)
			}
		}
	}
	problems, err := testutil.GatherAndLint(e.Gatherer(), "chatseq_fanout_seconds", "chatseq_full_visibility_seconds")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
}
