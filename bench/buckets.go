package bench

import (
	"math"
	"math/bits"
	"slices"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// bucketCounts is one step's values of a shard's current interval,
// counted per bucket of the run's histograms (histLowest, histSigFigs) in
// a dense array, with the buckets it touched listed: recording a value is
// an index and an increment, where a sparse histogram searches its
// buckets (a third of a run's latency recording, BenchmarkIntervalRecording),
// and moving the counts out walks only the buckets touched, not the
// array. The buckets are HdrHistogram's own (TestBucketsAreTheHistograms),
// and a histogram reports from its buckets alone (min, max, mean and
// percentiles alike), so the figures are those of recording each value.
type bucketCounts struct {
	counts  []uint32 // by bucket; allocated at the first value
	touched []int32  // buckets with a count, in the order first touched
}

// The run's histograms' geometry: 1 ns lowest, 3 significant digits, so
// buckets of 2048 sub-buckets whose lower half overlaps the bucket below.
const (
	subBucketHalfMag = 10 // log2 of half of 2·10^histSigFigs rounded up to a power of two
	subBucketHalf    = 1 << subBucketHalfMag
	subBucketMask    = 2*subBucketHalf - 1
)

// bucketOf is the histograms' counts index of v, 0 ≤ v ≤ histHighest.
func bucketOf(v int64) int32 {
	b := int32(64-bits.LeadingZeros64(uint64(v)|subBucketMask)) - (subBucketHalfMag + 1)
	sub := int32(v >> uint(b))
	return (b+1)<<subBucketHalfMag + sub - subBucketHalf
}

// bucketValue is the lowest value of bucket i.
func bucketValue(i int32) int64 {
	b := i>>subBucketHalfMag - 1
	sub := i&(subBucketHalf-1) + subBucketHalf
	if b < 0 {
		sub -= subBucketHalf
		b = 0
	}
	return int64(sub) << uint(b)
}

// bucketsLen is how many buckets values up to histHighest fall in.
var bucketsLen = int(bucketOf(histHighest)) + 1

// RecordValue counts v, 0 < v ≤ histHighest (recordValues's values).
func (c *bucketCounts) RecordValue(v int64) error {
	if c.counts == nil {
		c.counts = make([]uint32, bucketsLen)
	}
	i := bucketOf(v)
	n := c.counts[i]
	if n == 0 {
		c.touched = append(c.touched, i)
	} else if n == math.MaxUint32 {
		return nil // four billion values in one bucket of one interval: never
	}
	c.counts[i] = n + 1
	return nil
}

// any reports whether a value is counted.
func (c *bucketCounts) any() bool { return len(c.touched) > 0 }

// moveTo records the counts into h, which must be empty (a fresh or Reset
// one, so each bucket appends in order), and empties c. The buckets go in
// order: by a walk over the counts between the lowest and highest touched
// when they are dense there (a run's values mostly are), which costs less
// than sorting the touched ones.
func (c *bucketCounts) moveTo(h *hdrhistogram.PackedHistogram) {
	if len(c.touched) == 0 {
		return
	}
	lo, hi := slices.Min(c.touched), slices.Max(c.touched)
	move := func(i int32) {
		_ = h.RecordValues(bucketValue(i), int64(c.counts[i]))
		c.counts[i] = 0
	}
	if int(hi-lo) <= walkDensity*len(c.touched) {
		for i, n := range c.counts[lo : hi+1] {
			if n != 0 {
				move(lo + int32(i))
			}
		}
	} else {
		slices.Sort(c.touched)
		for _, i := range c.touched {
			move(i)
		}
	}
	c.touched = c.touched[:0]
}

// walkDensity is how many counts moveTo walks per bucket touched at most.
const walkDensity = 16
