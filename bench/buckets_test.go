package bench

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// bucketCounts counts values in the run's histograms' own buckets: a value
// and its bucket's lowest value are equivalent to HdrHistogram, two values
// share a bucket exactly when HdrHistogram says they are equivalent, and
// values counted then moved make the histogram recording each makes, for
// every figure a report reads.
func TestBucketsAreTheHistograms(t *testing.T) {
	geom := newHistogram()
	var values []int64
	for v := int64(1); v <= 1<<17; v++ {
		values = append(values, v)
	}
	for k := 1; k < 42; k++ {
		for _, d := range []int64{-2, -1, 0, 1, 2} {
			if v := int64(1)<<k + d; v > 0 && v <= histHighest {
				values = append(values, v)
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		values = append(values, 1+r.Int64N(histHighest))
	}
	values = append(values, histHighest)
	slices.Sort(values)
	for i, v := range values {
		b := bucketOf(v)
		if b < 0 || int(b) >= bucketsLen {
			t.Fatalf("value %d: bucket %d outside [0, %d)", v, b, bucketsLen)
		}
		if low := bucketValue(b); low > v || !geom.ValuesAreEquivalent(v, low) {
			t.Fatalf("value %d: bucket %d's lowest value %d is not equivalent to it", v, b, low)
		}
		if i > 0 {
			u := values[i-1]
			if same := bucketOf(u) == b; same != geom.ValuesAreEquivalent(u, v) {
				t.Fatalf("values %d and %d: same bucket %v, equivalent %v", u, v, same, !same)
			}
		}
	}

	// Moved counts are the histogram of the values recorded one by one.
	var c bucketCounts
	want := NewIntervalHistogram()
	for round := range 4 { // moveTo empties c for the next interval
		want.Reset()
		n, draw := 50_000, func() int64 { return 1 + int64(r.ExpFloat64()*200_000) }
		if round%2 == 1 { // a few far apart: moveTo sorts rather than walks
			n, draw = 100, func() int64 { return 1 + r.Int64N(histHighest) }
		}
		for range n {
			v := draw()
			_ = c.RecordValue(v)
			_ = want.RecordValue(v)
		}
		got := NewIntervalHistogram()
		c.moveTo(got)
		if a, b := bucketsOf(got), bucketsOf(want); !slices.Equal(a, b) {
			t.Fatalf("moved %d buckets, recorded %d: they differ", len(a), len(b))
		}
		for _, p := range []float64{0, 50, 90, 99, 99.9, 100} {
			if a, b := got.ValueAtPercentile(p), want.ValueAtPercentile(p); a != b {
				t.Fatalf("p%v: moved %d, recorded %d", p, a, b)
			}
		}
		if got.Min() != want.Min() || got.Max() != want.Max() || got.Mean() != want.Mean() || got.TotalCount() != want.TotalCount() {
			t.Fatalf("moved min %d max %d mean %f total %d, recorded %d %d %f %d",
				got.Min(), got.Max(), got.Mean(), got.TotalCount(), want.Min(), want.Max(), want.Mean(), want.TotalCount())
		}
		if c.any() {
			t.Fatal("counts left after moveTo")
		}
	}
}

func bucketsOf(h *hdrhistogram.PackedHistogram) [][2]int64 {
	var out [][2]int64
	h.ForEachBucket(func(value, count int64) bool {
		out = append(out, [2]int64{value, count})
		return true
	})
	return out
}
