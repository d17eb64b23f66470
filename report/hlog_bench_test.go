package report

import (
	"io"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/chatseq/chatseq/bench"
)

// BenchmarkWriteHlogOfASoak writes the latency log of twenty minutes at
// 2,000 operations a second (an interval a second, every step's
// latencies log-normal about a millisecond): what --out adds between a
// soak's check and its verdict.
//
//	go test ./report -run '^$' -bench WriteHlogOfASoak -benchtime 3x
func BenchmarkWriteHlogOfASoak(b *testing.B) {
	rng := rand.New(rand.NewPCG(20, 2000))
	ivs := make([]bench.Interval, 1200)
	for i := range ivs {
		ivs[i] = bench.Interval{Start: time.Duration(i) * bench.IntervalLength, Length: bench.IntervalLength, Latency: map[bench.Step]*hdrhistogram.PackedHistogram{}}
		for _, step := range bench.Steps() {
			h := bench.NewIntervalHistogram()
			for range 2000 {
				_ = h.RecordValue(int64(math.Exp(rng.NormFloat64()*0.8) * float64(time.Millisecond)))
			}
			ivs[i].Latency[step] = h
		}
	}
	started := time.Unix(1_700_000_000, 0)
	for b.Loop() {
		if err := WriteHlog(io.Discard, started, ivs); err != nil {
			b.Fatal(err)
		}
	}
}
