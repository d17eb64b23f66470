package metrics

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/chatseq/chatseq/gateway"
)

// The push channel's series read the gateway when scraped, and pass
// Prometheus' linter.
func TestPushSeriesReadTheGateway(t *testing.T) {
	e := New()
	g := gateway.New(gateway.Config{QueueLimit: 1})
	g.SetMembers("c", []string{"fast", "slow"})
	fast, _ := g.Subscribe("fast")
	_, _ = g.Subscribe("slow")
	if err := e.AttachPush(g, func() uint64 { return 2 }); err != nil {
		t.Fatal(err)
	}
	for seq := uint64(1); seq <= 2; seq++ {
		g.Deliver(context.Background(), []*gateway.Message{{ChatID: "c", Sequence: seq}})
		if _, err := fast.Next(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(promhttp.HandlerFor(e.Gatherer(), promhttp.HandlerOpts{}))
	defer srv.Close()
	fams := scrape(t, srv.Listener.Addr().String())
	for name, want := range map[string]float64{
		"chatseq_push_devices": 2, "chatseq_push_deliveries_total": 2, "chatseq_push_dropped_total": 2,
		"chatseq_push_overflows_total": 1, "chatseq_push_most_queued": 1, "chatseq_push_feed_records_total": 2,
		"chatseq_push_unrouted_total": 0, "chatseq_push_refused_total": 0,
	} {
		if got := value(t, fams, name); got != want {
			t.Errorf("%s = %g, want %g", name, got, want)
		}
	}
	problems, err := testutil.GatherAndLint(e.Gatherer(), "chatseq_push_devices", "chatseq_push_deliveries_total", "chatseq_push_dropped_total", "chatseq_push_overflows_total", "chatseq_push_unrouted_total", "chatseq_push_refused_total", "chatseq_push_most_queued", "chatseq_push_feed_records_total")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
}
