package report

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"runtime"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/internal/parallel"
)

// The HdrHistogram log (.hlog) holds each interval's latency histogram per
// step, tagged with the step's name, in nanoseconds: the layout the
// standard tools read (HistogramLogProcessor -tag persist, hdr-plot,
// hdrhistogram-go's HistogramLogReader). Timestamps are relative to a
// BaseTime, the run's start rounded down to a whole second, because the log
// format's BaseTime and StartTime lines carry whole seconds only.

// WriteHlog writes the run's intervals as an HdrHistogram interval log at
// the log's own interval, a second (bench.IntervalLength), whatever the
// run recorded at: a run's finer intervals are merged into the seconds
// they fall in. One line per step per second, empty seconds included, so
// every tag has one interval per second.
func WriteHlog(w io.Writer, started time.Time, ivs []bench.Interval) error {
	lw := hdrhistogram.NewHistogramLogWriter(w)
	startMs := started.UnixMilli()
	baseMs := startMs - startMs%1000
	lw.SetBaseTime(baseMs)
	if err := lw.OutputLogFormatVersion(); err != nil {
		return err
	}
	if err := lw.OutputComment("[chatseq bench latency per step, values in nanoseconds; tags: " + stepTags() + "]"); err != nil {
		return err
	}
	if err := lw.OutputStartTime(startMs); err != nil {
		return err
	}
	if err := lw.OutputBaseTime(baseMs); err != nil {
		return err
	}
	if err := lw.OutputLegend(); err != nil {
		return err
	}
	// A second's lines are encoded on every core, hlogWindow seconds to a
	// worker, and written in order: each histogram is compressed, and
	// twenty minutes' log took 3.3 s on one core (BenchmarkWriteHlogOfASoak).
	var seconds [][2]int // each second's intervals, [from, to)
	for from := 0; from < len(ivs); {
		second := ivs[from].Start / bench.IntervalLength
		to := from + 1
		for to < len(ivs) && ivs[to].Start/bench.IntervalLength == second {
			to++
		}
		seconds = append(seconds, [2]int{from, to})
		from = to
	}
	workers := runtime.GOMAXPROCS(0)
	for lo := 0; lo < len(seconds); lo += workers * hlogWindow {
		round := seconds[lo:min(lo+workers*hlogWindow, len(seconds))]
		parts := make([]bytes.Buffer, (len(round)+hlogWindow-1)/hlogWindow)
		errs := make([]error, len(parts))
		parallel.ForEach(workers, len(parts), func(k int) {
			part := hdrhistogram.NewHistogramLogWriter(&parts[k])
			part.SetBaseTime(baseMs)
			for _, sec := range round[k*hlogWindow : min((k+1)*hlogWindow, len(round))] {
				if errs[k] = writeHlogSecond(part, startMs, ivs[sec[0]:sec[1]]); errs[k] != nil {
					return
				}
			}
		})
		for k := range parts {
			if errs[k] != nil {
				return errs[k]
			}
			if _, err := parts[k].WriteTo(w); err != nil {
				return err
			}
		}
	}
	return nil
}

// hlogWindow is how many seconds of the log a worker encodes at a time.
const hlogWindow = 32

// writeHlogSecond writes one second's line per step, from its intervals.
func writeHlogSecond(lw *hdrhistogram.HistogramLogWriter, startMs int64, ivs []bench.Interval) error {
	start, end := ivs[0].Start, ivs[len(ivs)-1].Start+ivs[len(ivs)-1].Length
	for _, step := range bench.Steps() {
		h := bench.NewIntervalHistogram()
		for _, iv := range ivs {
			if src := iv.Latency[step]; src != nil && src.TotalCount() > 0 {
				h.Merge(src) // the log needs its own tag and times
			}
		}
		h.SetTag(step.String())
		h.SetStartTimeMs(startMs + start.Milliseconds())
		h.SetEndTimeMs(startMs + end.Milliseconds())
		if err := lw.OutputIntervalPackedHistogram(h); err != nil {
			return fmt.Errorf("hlog: %s at %s: %w", step, start, err)
		}
	}
	return nil
}

func stepTags() string {
	s := ""
	for i, step := range bench.Steps() {
		if i > 0 {
			s += " "
		}
		s += step.String()
	}
	return s
}

// readHlog reads an interval log written by WriteHlog and hands each
// histogram to visit with its step tag and interval index (its start,
// counted in seconds from started).
func readHlog(r io.Reader, started time.Time, visit func(interval int, tag string, h *hdrhistogram.Histogram) error) error {
	lr := hdrhistogram.NewHistogramLogReader(r)
	startMs := started.UnixMilli()
	for n := 1; ; n++ {
		h, err := lr.NextIntervalHistogram()
		if err != nil {
			return fmt.Errorf("interval histogram %d: %w", n, err)
		}
		if h == nil {
			return nil
		}
		// The reader turns timestamps into milliseconds through a float,
		// which may land a millisecond short: round to the interval.
		offset := float64(h.StartTimeMs()-startMs) / float64(bench.IntervalLength.Milliseconds())
		i := int(math.Round(offset))
		if i < 0 || math.Abs(offset-float64(i)) > 0.01 {
			return fmt.Errorf("interval histogram %d (tag %q) starts %.3fs after the run's start, not on a whole second", n, h.Tag(), offset)
		}
		if err := visit(i, h.Tag(), h); err != nil {
			return err
		}
	}
}
