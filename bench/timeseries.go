package bench

import (
	"runtime"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/chatseq/chatseq/internal/parallel"
)

// IntervalLength is the HdrHistogram interval log's resolution (one
// interval per second, the format's convention), and a long run's.
const IntervalLength = time.Second

// A run's time series starts at FineInterval, so that a run of a few
// seconds still has enough points to draw a line and to compare runs by
// (compare tests per-interval samples); once it holds more than
// MaxFineIntervals it is merged into IntervalLength ones, so a long run
// does not hold ten intervals a second. A run planned longer than that
// records at IntervalLength from the start.
const (
	FineInterval     = 100 * time.Millisecond
	MaxFineIntervals = 600
)

// IntervalFor is the interval a run of cfg starts recording at.
func IntervalFor(cfg *Config) time.Duration {
	if cfg.Duration > MaxFineIntervals*FineInterval {
		return IntervalLength
	}
	return FineInterval
}

// Interval is what completed during one interval of the writers' time
// (Result.IntervalLength). Values land in the interval in which they were
// recorded, i.e. when the operation completed, as HdrHistogram's interval
// recorder does.
type Interval struct {
	Start  time.Duration // since the writers started
	Length time.Duration // the run's interval length; the last one may be longer (tailFold)
	Counts Counts
	// Latency has one histogram per step, sparse: a long run keeps
	// thousands of intervals, and a dense histogram of the run's range is
	// 270 KB.
	Latency map[Step]*hdrhistogram.PackedHistogram
}

// Progress is what the runner reports about every ProgressEvery while the
// writers run, and once more with Done set when they have stopped.
type Progress struct {
	Target   string
	Elapsed  time.Duration
	Duration time.Duration // the configured --duration; 0 if the run is bounded by Ops alone
	// Operations completed so far, and the configured total (0: none).
	Operations, TargetOps int64
	// Rate and P99 (end to end) cover the last second's complete
	// intervals: a recent view, not the run's average.
	Rate float64
	P99  time.Duration
	// FaultsInjected counts attempts that carried an injected fault so far;
	// ActiveFaults names the timed faults whose window is open now, as
	// schedules name them (kafka_outage).
	FaultsInjected int64
	ActiveFaults   []string
	Done           bool
}

// ProgressEvery is how often Config.Progress is called.
const ProgressEvery = 250 * time.Millisecond

// series is the run's intervals. Shards count the values of the current
// interval of their own per bucket (bucketCounts) and merge them here when
// it ends, so writers contend only on their shard. (A dense histogram
// records as fast, but moving one is a walk over all its 33k counts: ten
// times a second per shard and step, that cost more than it saved, and
// under the race detector it starved the writers; a sparse one searches
// its buckets for every value. BenchmarkIntervalRecording.)
type series struct {
	mu sync.Mutex
	// clock is the run clock (nanoseconds) and start its reading when the
	// writers began; both are set before any writer starts, then only read.
	clock func() int64
	start int64
	begun bool
	// base is the length shards count intervals in; the series keeps
	// intervals of base·factor (factor grows from 1 when it coarsens).
	base      time.Duration
	factor    int
	intervals []*intervalData
	ops       int64 // Operations over every interval moved here
	faults    int64
	// Intervals below sealedTo are sealed (but those in reopened, which a
	// late update or a reader opened again): see seal.
	sealedTo int
	reopened []int
}

type intervalData struct {
	counts Counts
	hists  [stepCount]*hdrhistogram.PackedHistogram // nil while sealed
	// sealed holds the histograms encoded (sealHistogram: the same
	// buckets and counts) while the interval is sealed: a long run keeps
	// an interval a second, and a step's histogram of a busy second is
	// kilobytes, some 15 bytes an operation at 2,000 a second; encoded it
	// is a fraction of that.
	sealed [stepCount][]byte
}

// sealLag is how many intervals of length each behind the current one
// stay open: the progress line reads the last second's, and a shard may
// still move a late update into the one before.
func sealLag(length time.Duration) int { return 2*int(IntervalLength/length) + 2 }

// hists is interval i's histograms, opened (decoded) if it was sealed;
// s.mu is held.
func (s *series) hists(i int) *[stepCount]*hdrhistogram.PackedHistogram {
	d := s.intervals[i]
	if d.hists[0] == nil {
		d.open()
		if i < s.sealedTo {
			s.reopened = append(s.reopened, i)
		}
	}
	return &d.hists
}

// open decodes a sealed interval's histograms.
func (d *intervalData) open() {
	for step := range d.hists {
		h, err := openHistogram(d.sealed[step])
		if err != nil {
			// What sealHistogram wrote always opens; should it not,
			// the interval reads as empty rather than stopping the run.
			h = NewIntervalHistogram()
		}
		d.hists[step] = h
	}
	d.sealed = [stepCount][]byte{}
}

// openSealed opens every sealed interval, on every core: the run is over
// and each is read. Twenty minutes sealed are 7,200 histograms, opened one
// by one a few tenths of a second between the writers' end and the
// verdict. s.mu is held.
func (s *series) openSealed() {
	var sealed []int
	for i, d := range s.intervals {
		if d.hists[0] == nil {
			sealed = append(sealed, i)
		}
	}
	parallel.ForEach(runtime.GOMAXPROCS(0), len(sealed), func(k int) { s.intervals[sealed[k]].open() })
	for _, i := range sealed {
		if i < s.sealedTo {
			s.reopened = append(s.reopened, i)
		}
	}
}

// seal encodes the histograms of the intervals up to below (and those
// opened again since) and lets their open forms go; s.mu is held.
func (s *series) seal(below int) {
	below = min(below, len(s.intervals))
	keep := s.reopened[:0]
	for _, i := range s.reopened {
		if i >= below {
			keep = append(keep, i)
		} else {
			s.intervals[i].seal()
		}
	}
	s.reopened = keep
	for ; s.sealedTo < below; s.sealedTo++ {
		s.intervals[s.sealedTo].seal()
	}
}

// seal encodes d's histograms (sealHistogram).
func (d *intervalData) seal() {
	if d.hists[0] == nil {
		return
	}
	for step, h := range d.hists {
		d.sealed[step] = sealHistogram(h)
	}
	d.hists = [stepCount]*hdrhistogram.PackedHistogram{}
}

// intervalShard is one latency shard's part of the current interval.
type intervalShard struct {
	series  *series
	index   int // interval the fields below belong to
	buckets [stepCount]bucketCounts
	counts  Counts
	dirty   bool
	moving  *hdrhistogram.PackedHistogram // flush's: a step's buckets on their way to the series
}

func newIntervalShard(s *series) intervalShard {
	return intervalShard{series: s, counts: Counts{ErrorCodes: map[string]int64{}}, moving: NewIntervalHistogram()}
}

// NewIntervalHistogram is an empty interval histogram with the range and
// precision of the run's.
func NewIntervalHistogram() *hdrhistogram.PackedHistogram {
	return hdrhistogram.NewPacked(histLowest, histHighest, histSigFigs)
}

// indexAt is the base interval t (run clock) falls in, -1 before the run
// started. base is set before any writer starts and never changes.
func (s *series) indexAt(t int64) int {
	if !s.begun || t < s.start {
		return -1
	}
	return int((t - s.start) / int64(s.base))
}

// length is the series' interval length; s.mu is held.
func (s *series) length() time.Duration { return s.base * time.Duration(s.factor) }

// at returns the series interval holding base interval i, creating it and
// any before it; s.mu is held.
func (s *series) at(i int) *intervalData {
	if len(s.intervals) > MaxFineIntervals && s.length() < IntervalLength {
		s.coarsen()
	}
	i /= s.factor
	for len(s.intervals) <= i {
		d := &intervalData{counts: Counts{ErrorCodes: map[string]int64{}}}
		for step := range d.hists {
			d.hists[step] = NewIntervalHistogram()
		}
		s.intervals = append(s.intervals, d)
	}
	return s.intervals[i]
}

// coarsen merges the intervals into IntervalLength ones; s.mu is held.
func (s *series) coarsen() {
	for i := range s.intervals {
		s.hists(i)
	}
	s.sealedTo, s.reopened = 0, nil
	k := int(IntervalLength / s.length())
	merged := make([]*intervalData, 0, (len(s.intervals)+k-1)/k)
	for i, d := range s.intervals {
		if i%k == 0 {
			merged = append(merged, d)
			continue
		}
		into := merged[len(merged)-1]
		into.counts.add(d.counts)
		for step := range d.hists {
			into.hists[step].Merge(d.hists[step])
		}
	}
	s.intervals = merged
	s.factor *= k
}

// record adds one operation's step values (0: the step did not run) and
// counts at time now; the shard's lock is held.
func (sh *intervalShard) record(now int64, values [stepCount]int64, op opCounts) {
	sh.apply(now, &values, func(c *Counts) { c.addOp(op) })
}

// count applies a writer's count update at time now; the shard's lock is
// held.
func (sh *intervalShard) count(now int64, f func(*Counts)) { sh.apply(now, nil, f) }

// apply records values (if any) and applies f to the counts of the
// interval now falls in. An update from an interval the shard already left
// (a writer that read the clock just before another crossed the boundary)
// goes straight to the series.
func (sh *intervalShard) apply(now int64, values *[stepCount]int64, f func(*Counts)) {
	i := sh.series.indexAt(now)
	if i < 0 {
		return
	}
	if sh.dirty && i < sh.index {
		s := sh.series
		s.mu.Lock()
		d := s.at(i)
		recordValues(s.hists(i/s.factor), values)
		before := d.counts
		f(&d.counts)
		s.ops += d.counts.Operations - before.Operations
		s.faults += d.counts.FaultsInjected - before.FaultsInjected
		s.mu.Unlock()
		return
	}
	sh.roll(i)
	if values != nil {
		for step, v := range values {
			if v > 0 {
				_ = sh.buckets[step].RecordValue(min(v, histHighest))
			}
		}
	}
	f(&sh.counts)
	sh.dirty = true
}

// recordValues adds each step's value that ran (> 0) to its histogram.
func recordValues[H interface{ RecordValue(int64) error }](hists *[stepCount]H, values *[stepCount]int64) {
	if values == nil {
		return
	}
	for step, v := range values {
		if v > 0 {
			_ = hists[step].RecordValue(min(v, histHighest))
		}
	}
}

// roll moves the shard's data to the series when interval i is a later one.
func (sh *intervalShard) roll(i int) {
	if sh.dirty && i > sh.index {
		sh.flush()
	}
	if !sh.dirty {
		sh.index = i
	}
}

// flush moves the shard's current interval into the series.
func (sh *intervalShard) flush() {
	if !sh.dirty {
		return
	}
	s := sh.series
	s.mu.Lock()
	d := s.at(sh.index)
	hists := s.hists(sh.index / s.factor)
	for step := range sh.buckets {
		if b := &sh.buckets[step]; b.any() {
			sh.moving.Reset()
			b.moveTo(sh.moving)
			hists[step].Merge(sh.moving)
		}
	}
	d.counts.add(sh.counts)
	s.ops += sh.counts.Operations
	s.faults += sh.counts.FaultsInjected
	s.mu.Unlock()
	sh.counts = Counts{ErrorCodes: map[string]int64{}}
	sh.dirty = false
}

// begin starts the series on clock (nanoseconds, monotonic) at intervals
// of base; call it before any writer starts.
func (l *latencies) begin(clock func() int64, base time.Duration) {
	l.series.base, l.series.factor = base, 1
	l.series.clock, l.series.start, l.series.begun = clock, clock(), true
}

// rotate moves every shard's data of intervals before the one now is in to
// the series, so a reader sees complete intervals even while writers that
// were idle since have not recorded again.
func (l *latencies) rotate(now int64) {
	i := l.series.indexAt(now)
	for k := range l.shards {
		sh := &l.shards[k]
		sh.mu.Lock()
		sh.fold()
		if sh.interval.dirty && sh.interval.index < i {
			sh.interval.flush()
		}
		sh.mu.Unlock()
	}
}

// tailFold is the shortest last interval kept on its own, as a share of
// the interval length. The writers stop at the configured duration and the
// run ends when operations in flight have finished: a few milliseconds
// whose handful of completions would plot as a collapse of throughput, so
// they join the interval before.
const tailFold = 4

// flush moves every shard's data to the series.
func (l *latencies) flush() {
	for k := range l.shards {
		sh := &l.shards[k]
		sh.mu.Lock()
		sh.fold()
		sh.interval.flush()
		sh.mu.Unlock()
	}
}

// intervals flushes every shard and returns the run's intervals, the last
// one ending at elapsed. Call it after totals: it folds a short last
// interval into the one before.
func (l *latencies) intervals(elapsed time.Duration) ([]Interval, time.Duration) {
	l.flush()
	s := l.series
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := int((elapsed + s.base - 1) / s.base); n > 0 {
		s.at(n - 1) // trailing intervals with nothing completed are still intervals
	}
	every := s.length()
	out := make([]Interval, len(s.intervals))
	for i, d := range s.intervals {
		s.hists(i)
		start := time.Duration(i) * every
		length := every
		if end := start + every; end > elapsed && elapsed > start {
			length = elapsed - start
		}
		iv := Interval{Start: start, Length: length, Counts: d.counts, Latency: make(map[Step]*hdrhistogram.PackedHistogram, stepCount)}
		for _, step := range Steps() {
			iv.Latency[step] = d.hists[step]
		}
		out[i] = iv
	}
	if n := len(out); n >= 2 && out[n-1].Length < every/tailFold {
		prev, last := &out[n-2], out[n-1]
		prev.Length += last.Length
		prev.Counts.add(last.Counts)
		for step, h := range last.Latency {
			prev.Latency[step].Merge(h)
		}
		out = out[:n-1]
	}
	return out, every
}

// progress summarises the run so far at now.
func (l *latencies) progress(now int64) Progress {
	l.rotate(now)
	var p Progress
	s := l.series
	s.mu.Lock()
	p.Operations, p.FaultsInjected = s.ops, s.faults
	if last := s.indexAt(now)/s.factor - 1; last >= 0 && last < len(s.intervals) {
		// The last second's complete intervals: a tenth of a second of a
		// slow run is too few operations for a steady rate or a p99.
		first := max(0, last+1-int(IntervalLength/s.length()))
		window := NewIntervalHistogram()
		var ops int64
		for i, d := range s.intervals[first : last+1] {
			ops += d.counts.Operations
			window.Merge(s.hists(first + i)[StepEndToEnd])
		}
		p.Rate = float64(ops) / (time.Duration(last+1-first) * s.length()).Seconds()
		p.P99 = time.Duration(window.ValueAtPercentile(99))
		s.seal(last + 1 - sealLag(s.length()))
	}
	s.mu.Unlock()
	for k := range l.shards {
		sh := &l.shards[k]
		sh.mu.Lock()
		p.Operations += sh.interval.counts.Operations
		p.FaultsInjected += sh.interval.counts.FaultsInjected
		sh.mu.Unlock()
	}
	return p
}

// reportProgress calls cfg.Progress every ProgressEvery until the returned
// stop is called, which reports once more with Done set.
func (l *latencies) reportProgress(cfg *Config, clock *runClock) (stop func()) {
	if cfg.Progress == nil {
		return func() {}
	}
	report := func(done bool) {
		now := l.series.clock()
		p := l.progress(now)
		p.Target, p.Done = cfg.Target, done
		p.Elapsed = time.Duration(now - l.series.start)
		p.Duration, p.TargetOps = cfg.Duration, int64(cfg.Ops)
		el := clock.elapsed()
		for _, f := range cfg.Timed {
			if f.Active(el) {
				p.ActiveFaults = append(p.ActiveFaults, f.ScheduleName())
			}
		}
		cfg.Progress(p)
	}
	quit := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(ProgressEvery)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
				report(false)
			}
		}
	}()
	return func() {
		close(quit)
		<-finished
		report(true)
	}
}
