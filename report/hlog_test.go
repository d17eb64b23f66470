package report

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/chatseq/chatseq/bench"
)

// latency.hlog is read back by hdrhistogram-go's standard log reader: one
// histogram per step tag per second, one second apart, which together hold
// exactly the run's latency values.
func TestHlogReadsBackWithTheStandardReader(t *testing.T) {
	f := healthyRun(t)
	file, err := os.Open(filepath.Join(f.dir, HlogFile))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	r := hdrhistogram.NewHistogramLogReader(file)
	perTag := map[string][]*hdrhistogram.Histogram{}
	for {
		h, err := r.NextIntervalHistogram()
		if err != nil {
			t.Fatal(err)
		}
		if h == nil {
			break
		}
		perTag[h.Tag()] = append(perTag[h.Tag()], h)
	}
	// The run records at tenths of a second; the log keeps its own second.
	intervals := int(f.res.Intervals[len(f.res.Intervals)-1].Start/bench.IntervalLength) + 1
	if f.res.IntervalLength != bench.FineInterval || len(f.res.Intervals) < 30 {
		t.Fatalf("the fixture recorded %d intervals of %s; want at least 30 of %s", len(f.res.Intervals), f.res.IntervalLength, bench.FineInterval)
	}
	startMs := f.saved.Results.Started.UnixMilli()
	for _, step := range bench.Steps() {
		hs := perTag[step.String()]
		if len(hs) != intervals {
			t.Fatalf("tag %s: %d interval histograms, want %d (one per second)", step, len(hs), intervals)
		}
		total := hdrhistogram.New(1, 3600e9, 3)
		for i, h := range hs {
			// The reader's float arithmetic may put a start a millisecond
			// early.
			if d := h.StartTimeMs() - (startMs + int64(i)*1000); d < -1 || d > 1 {
				t.Errorf("tag %s interval %d starts %d ms off its second", step, i, d)
			}
			total.Merge(h)
		}
		want := f.res.Latency[step]
		if total.TotalCount() != want.TotalCount() {
			t.Errorf("tag %s: %d values in the log, %d in the run", step, total.TotalCount(), want.TotalCount())
		}
		if total.ValueAtQuantile(99) != want.ValueAtQuantile(99) || total.Max() != want.Max() {
			t.Errorf("tag %s: log p99 %d max %d, run p99 %d max %d", step, total.ValueAtQuantile(99), total.Max(), want.ValueAtQuantile(99), want.Max())
		}
	}
	if len(perTag) != len(bench.Steps()) {
		t.Errorf("tags %v, want one per step", keys(perTag))
	}
	if perTag["publish"][0].TotalCount() == 0 {
		t.Error("the first second has no publish latency: is Kafka on in the fixture?")
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// The log encoded on every core, a window of seconds to each, is the log
// written a second at a time in order, byte for byte, over more seconds
// than one round of windows holds.
func TestHlogEncodedSideBySideIsWrittenInOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	n := 3*runtime.GOMAXPROCS(0)*hlogWindow + 7
	var ivs []bench.Interval
	for i := range 2 * n { // two intervals a second
		iv := bench.Interval{Start: time.Duration(i) * bench.IntervalLength / 2, Length: bench.IntervalLength / 2, Latency: map[bench.Step]*hdrhistogram.PackedHistogram{}}
		for _, step := range bench.Steps() {
			h := bench.NewIntervalHistogram()
			for range rng.IntN(20) {
				_ = h.RecordValue(1 + rng.Int64N(int64(time.Second)))
			}
			iv.Latency[step] = h
		}
		ivs = append(ivs, iv)
	}
	started := time.Unix(1_700_000_000, 250_000_000)
	var got bytes.Buffer
	if err := WriteHlog(&got, started, ivs); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	lw := hdrhistogram.NewHistogramLogWriter(&want)
	startMs := started.UnixMilli()
	lw.SetBaseTime(startMs - startMs%1000)
	for i := 0; i < len(ivs); i += 2 {
		if err := writeHlogSecond(lw, startMs, ivs[i:i+2]); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.HasSuffix(got.Bytes(), want.Bytes()) || bytes.Count(got.Bytes(), []byte("\n")) != bytes.Count(want.Bytes(), []byte("\n"))+5 {
		t.Fatalf("the log's %d lines are not the %d written in order after its 5 header lines", bytes.Count(got.Bytes(), []byte("\n")), bytes.Count(want.Bytes(), []byte("\n")))
	}
}
