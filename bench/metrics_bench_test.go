package bench_test

import (
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/metrics"
)

// BenchmarkPersistMetricsSideBySide is what --metrics-addr costs a whole
// run: the same run as BenchmarkPersistRecorded without live metrics and
// with them, scraped every 250 ms (sixty times Prometheus' default rate),
// four phases each in metricsOrder. metrics-ratio is the rate with metrics
// over the rate without.
//
//	go test ./bench -run '^$' -bench PersistMetricsSideBySide -benchtime 2000000x -count 3
func BenchmarkPersistMetricsSideBySide(b *testing.B) {
	var plain, live sideBySide
	withMetrics := func() (float64, cpuUse) {
		e := metrics.New()
		stop := make(chan struct{})
		scraped := make(chan struct{})
		go func() {
			defer close(scraped)
			tick := time.NewTicker(250 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
					if _, err := e.Gatherer().Gather(); err != nil {
						b.Error(err)
					}
				}
			}
		}()
		defer func() { close(stop); <-scraped }()
		return runRateWith(b, b.N, func(cfg *bench.Config) { cfg.Metrics = e })
	}
	phases := []struct {
		into *sideBySide
		rate func() (float64, cpuUse)
	}{
		{&plain, func() (float64, cpuUse) { return runRate(b, b.N) }},
		{&live, withMetrics},
	}
	for _, i := range metricsOrder {
		startAfresh()
		rate, cpu := phases[i].rate()
		phases[i].into.add(b.N, rate, cpu)
	}
	b.ReportMetric(plain.rate(), "run/s")
	b.ReportMetric(live.rate(), "run-metrics/s")
	b.ReportMetric(live.rate()/plain.rate(), "metrics-ratio")
	b.ReportMetric(plain.cpuPerPersist().total, "run-cpu-ns")
	b.ReportMetric(live.cpuPerPersist().total, "run-metrics-cpu-ns")
}

// metricsOrder alternates the two kinds (0 without metrics, 1 with) so
// that each kind's positions add up to 14: a steady drift of the
// machine's speed weighs on both alike.
var metricsOrder = []int{0, 1, 1, 0, 1, 0, 0, 1}
