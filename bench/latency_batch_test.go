package bench

import (
	"testing"
	"time"

	"github.com/chatseq/chatseq/history"
)

// Operations wait in a shard's batch before reaching the histograms; every
// reader folds them first: the totals, a progress report, and the
// intervals, each in the second its operation completed in.
func TestLatencyBatchesReachEveryReader(t *testing.T) {
	second := int64(IntervalLength)
	newRun := func() *latencies {
		l := newLatencies()
		l.begin(func() int64 { return 0 }, IntervalLength)
		return l
	}
	record := func(l *latencies, writer int, now int64) {
		l.shard(writer).record(now, [stepCount]int64{StepPersist: 500, StepEndToEnd: 1500}, opCounts{kind: history.KindOK})
	}

	l := newRun()
	for i := range 5 { // fewer than a batch, on two shards
		record(l, i%2, int64(i))
	}
	hists, counts := l.totals()
	if counts.Operations != 5 || counts.PersistOK != 5 || hists[StepPersist].TotalCount() != 5 || hists[StepEndToEnd].TotalCount() != 5 {
		t.Fatalf("totals of 5 batched operations: %d operations, %d ok, %d persist and %d end-to-end values",
			counts.Operations, counts.PersistOK, hists[StepPersist].TotalCount(), hists[StepEndToEnd].TotalCount())
	}

	l = newRun()
	for i := range 3 {
		record(l, 0, int64(i))
	}
	if p := l.progress(second + 1); p.Operations != 3 || p.Rate != 3 {
		t.Fatalf("progress after 3 batched operations in the first second: %d operations at %.0f/s, want 3 at 3/s", p.Operations, p.Rate)
	}

	l = newRun()
	for i := range latencyBatch + 10 { // a full batch folds on its own; the rest waits
		record(l, 0, int64(i)*second/int64(latencyBatch)) // the last ten in the second second
	}
	ivs, _ := l.intervals(2 * time.Second)
	if len(ivs) != 2 || ivs[0].Counts.Operations != latencyBatch || ivs[1].Counts.Operations != 10 {
		t.Fatalf("intervals %+v, want %d operations then 10", ivs, latencyBatch)
	}
	if n := ivs[1].Latency[StepPersist].TotalCount(); n != 10 {
		t.Fatalf("the second second holds %d persist values, want 10", n)
	}
}

// A run starts at FineInterval; past MaxFineIntervals its intervals merge
// into IntervalLength ones, every operation and value kept, and later
// operations land in the coarse interval of their time.
func TestIntervalsCoarsenPastTheFineLimit(t *testing.T) {
	l := newLatencies()
	l.begin(func() int64 { return 0 }, FineInterval)
	fine := int64(FineInterval)
	record := func(now int64) {
		l.shard(0).record(now, [stepCount]int64{StepPersist: 500}, opCounts{kind: history.KindOK})
	}
	short := newLatencies()
	short.begin(func() int64 { return 0 }, FineInterval)
	for i := range 30 { // a 3 s run: 30 points
		short.shard(0).record(int64(i)*fine+1, [stepCount]int64{StepPersist: 500}, opCounts{kind: history.KindOK})
	}
	// Progress reads the last second's intervals: nineteen operations, not
	// the last tenth's ten scaled up to 100/s.
	for range 9 {
		short.shard(1).record(29*fine+2, [stepCount]int64{StepPersist: 500}, opCounts{kind: history.KindOK})
	}
	if p := short.progress(int64(3 * time.Second)); p.Rate != 19 || p.Operations != 39 {
		t.Fatalf("progress at 3s: %.1f ops/s, %d operations; want 19/s and 39", p.Rate, p.Operations)
	}
	if ivs, every := short.intervals(3 * time.Second); len(ivs) != 30 || every != FineInterval || ivs[29].Counts.Operations != 10 {
		t.Fatalf("a 3 s run: %d intervals of %s, want 30 of %s", len(ivs), every, FineInterval)
	}
	const seconds = 70
	for i := range seconds * 10 {
		record(int64(i)*fine + 1)
		if i%latencyBatch == 0 {
			l.rotate(int64(i) * fine)
		}
	}
	ivs, every := l.intervals(seconds * time.Second)
	if every != IntervalLength || len(ivs) != seconds {
		t.Fatalf("%d intervals of %s after %ds, want %d of %s", len(ivs), every, seconds, seconds, IntervalLength)
	}
	for i, iv := range ivs {
		if iv.Start != time.Duration(i)*time.Second || iv.Counts.Operations != 10 || iv.Latency[StepPersist].TotalCount() != 10 {
			t.Fatalf("interval %d: start %s, %d operations, %d values; want %ds, 10, 10", i, iv.Start, iv.Counts.Operations, iv.Latency[StepPersist].TotalCount(), i)
		}
	}
}

// BenchmarkIntervalRecording measures what recording costs an operation at
// tenths of a second against whole seconds (a shard moves its histograms
// to the series ten times as often): one run, side by side.
//
//	go test -run '^$' -bench IntervalRecording -count 3 ./bench/
func BenchmarkIntervalRecording(b *testing.B) {
	for _, base := range []time.Duration{FineInterval, IntervalLength} {
		b.Run(base.String(), func(b *testing.B) {
			l := newLatencies()
			l.begin(func() int64 { return 0 }, base)
			// 100k operations a second over 8 writers, as a fast run does.
			const perSecond = 100_000
			step := int64(time.Second) / perSecond
			// Values spread over a few hundred buckets, as a run's are.
			spread := func(i int, base int64) int64 { return base + base*int64((i*7919)%1000)/100 }
			b.ResetTimer()
			for i := range b.N {
				values := [stepCount]int64{StepAllocate: spread(i, 60), StepPersist: spread(i, 800), StepEndToEnd: spread(i, 200_000), StepService: spread(i, 200_000)}
				l.shard(i%8).record(int64(i)*step, values, opCounts{kind: history.KindOK})
			}
			l.flush()
		})
	}
}
