package bench

import (
	"testing"
	"time"

	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/metrics"
	"github.com/chatseq/chatseq/sequencer"
)

// BenchmarkRecordMetricsSideBySide is the live metrics' cost on a writer's
// hot path: recording an operation into its latency shard (and the batch
// fold that follows) without a metrics tally and with one, b.N operations
// a phase, alternating as metricsOrder does in the whole-run benchmark.
//
//	go test ./bench -run '^$' -bench RecordMetricsSideBySide -benchtime 2000000x -count 3
func BenchmarkRecordMetricsSideBySide(b *testing.B) {
	phase := func(withMetrics bool) float64 {
		l := newLatencies()
		l.begin(func() int64 { return 0 }, IntervalLength)
		if withMetrics {
			l.exportTo(metrics.New(), 64, nil)
		}
		sh := l.shard(0)
		values := [stepCount]int64{StepAllocate: 150, StepPersist: 900, StepEndToEnd: 3000, StepService: 3000}
		op := opCounts{kind: history.KindOK, allocated: true, steps: sequencer.StepEvents{Transactions: 1, Committed: true}}
		start := time.Now()
		for i := range b.N {
			op.chat = int32(i % 64)
			sh.record(int64(i), values, op)
		}
		return float64(time.Since(start).Nanoseconds()) / float64(b.N)
	}
	var sums [2]float64
	for _, k := range []int{0, 1, 1, 0, 1, 0, 0, 1} {
		sums[k] += phase(k == 1)
	}
	b.ReportMetric(sums[0]/4, "plain-ns/op")
	b.ReportMetric(sums[1]/4, "metrics-ns/op")
	b.ReportMetric((sums[1]-sums[0])/4, "added-ns/op")
}
