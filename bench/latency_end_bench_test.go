package bench

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/chatseq/chatseq/history"
)

// BenchmarkLatencyAtRunEnd is what a run's latencies cost once its
// writers stop (totals, then intervals), after twenty minutes at 2,000
// operations a second, sealed as the progress line moves: part of the
// time between the writers' end and the verdict.
//
//	go test ./bench -run '^$' -bench LatencyAtRunEnd -benchtime 3x
func BenchmarkLatencyAtRunEnd(b *testing.B) {
	const run, every = 20 * time.Minute, 500 * time.Microsecond
	for b.Loop() {
		b.StopTimer()
		var now int64
		l := newLatencies()
		l.begin(func() int64 { return now }, IntervalLength)
		rng := rand.New(rand.NewPCG(20, 2000))
		for now < int64(run) {
			now += int64(every)
			var values [stepCount]int64
			for step := range values {
				values[step] = 1 + rng.Int64N(int64(20*time.Millisecond))
			}
			l.shard(rng.IntN(histShards)).record(now, values, opCounts{kind: history.KindOK})
			if now%int64(time.Second) == 0 {
				l.progress(now)
			}
		}
		b.StartTimer()
		l.totals()
		l.intervals(run)
	}
}
