package bench

import (
	"sync"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/metrics"
	"github.com/chatseq/chatseq/sequencer"
)

// Step names the latencies a run reports.
type Step int

const (
	StepAllocate Step = iota // ADR-004 step 3
	StepPersist              // step 4
	StepPublish              // step 5
	StepEndToEnd             // a whole persist attempt, from its intended start
	StepService              // the same attempt from when it was actually sent: what a closed-loop tool reports
	StepSync
	stepCount
)

var stepNames = [...]string{"allocate", "persist", "publish", "end_to_end", "service", "sync"}

func (s Step) String() string { return stepNames[s] }

// Steps lists every step in report order.
func Steps() []Step {
	return []Step{StepAllocate, StepPersist, StepPublish, StepEndToEnd, StepService, StepSync}
}

const (
	histLowest  = 1          // 1 ns
	histHighest = 3600 * 1e9 // 1 hour
	histSigFigs = 3
	histShards  = 8
)

func newHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(histLowest, histHighest, histSigFigs)
}

// latencyShard is the current interval's histograms and counts shared by
// a few writers: one per writer would cost memory linear in writers, one
// for all would contend. Each value is recorded once, into its interval;
// the run's totals are the intervals merged (timeseries.go).
//
// An operation's values wait in pending and are folded into the
// histograms a batch at a time: recording straight away touched a dozen
// cache lines per operation (a count per step, each histogram's totals),
// which the store's working set had evicted since the writer's last
// operation; a batch finds them warm after the first.
type latencyShard struct {
	mu       sync.Mutex
	interval intervalShard
	pending  []pendingOp
	tally    *metrics.Tally // the run's live metrics (nil: not exported), folded with the batch
}

// pendingOp is one operation recorded but not yet folded.
type pendingOp struct {
	now    int64
	values [stepCount]int64
	op     opCounts
}

// latencyBatch is how many operations a shard holds before folding them.
const latencyBatch = 128

type latencies struct {
	shards [histShards]latencyShard
	series *series
}

func newLatencies() *latencies {
	l := &latencies{series: &series{}}
	for i := range l.shards {
		l.shards[i].interval = newIntervalShard(l.series)
	}
	return l
}

func (l *latencies) shard(writer int) *latencyShard { return &l.shards[writer%histShards] }

// record adds one operation at now (the run clock): its step values,
// skipping steps that did not run (0), and its counts.
func (s *latencyShard) record(now int64, values [stepCount]int64, op opCounts) {
	s.mu.Lock()
	if s.pending == nil {
		s.pending = make([]pendingOp, 0, latencyBatch)
	}
	s.pending = append(s.pending, pendingOp{now: now, values: values, op: op})
	if len(s.pending) == latencyBatch {
		s.fold()
	}
	s.mu.Unlock()
}

// fold moves the pending operations into the interval, in the order they
// were recorded; s.mu is held.
func (s *latencyShard) fold() {
	for i := range s.pending {
		p := &s.pending[i]
		s.interval.record(p.now, p.values, p.op)
		if s.tally != nil {
			op := p.op.metric(p.values[StepAllocate])
			s.tally.Add(&op)
		}
	}
	s.pending = s.pending[:0]
}

// exportTo attaches the run to e (nil: nothing): each shard counts what
// it folds, and a scrape folds what is pending and reads the counts. Call
// it after begin. The returned detach keeps the final counts once the
// writers are done.
func (l *latencies) exportTo(e *metrics.Exporter, chats int, faults func() map[string]bool) (detach func()) {
	if e == nil {
		return func() {}
	}
	for i := range l.shards {
		sh := &l.shards[i]
		sh.mu.Lock()
		sh.tally = metrics.NewTally(chats)
		sh.mu.Unlock()
	}
	return e.Attach(chats, func(dst *metrics.Tally) {
		for i := range l.shards {
			sh := &l.shards[i]
			sh.mu.Lock()
			sh.fold()
			sh.tally.AddTo(dst)
			sh.mu.Unlock()
		}
	}, faults)
}

// count applies a writer's count update (a retry, a duplicate sent) at now.
func (s *latencyShard) count(now int64, f func(*Counts)) {
	s.mu.Lock()
	s.fold()
	s.interval.count(now, f)
	s.mu.Unlock()
}

// totals flushes every shard and returns the run's histogram per step and
// its counts, summed over the intervals.
func (l *latencies) totals() (map[Step]*hdrhistogram.Histogram, Counts) {
	l.flush()
	s := l.series
	s.mu.Lock()
	defer s.mu.Unlock()
	s.openSealed()
	hists := make(map[Step]*hdrhistogram.Histogram, stepCount)
	for _, step := range Steps() {
		h := newHistogram()
		for i := range s.intervals {
			s.hists(i)[step].MergeInto(h)
		}
		hists[step] = h
	}
	counts := Counts{ErrorCodes: map[string]int64{}}
	for _, d := range s.intervals {
		counts.add(d.counts)
	}
	return hists, counts
}

// opCounts is what one operation adds to the counts.
type opCounts struct {
	sync     bool
	kind     history.Kind
	code     string // error code of a fail or info
	dedup    bool
	attempts int64 // optimistic transactions tried
	faulted  bool  // the attempt carried an injected fault
	// For the live metrics: the chat's index, whether step 3 allocated,
	// and what the core's steps met.
	chat      int32
	allocated bool
	steps     sequencer.StepEvents
}

// metric is the operation as the live metrics count it, allocateNanos
// its step 3 latency.
func (o *opCounts) metric(allocateNanos int64) metrics.Op {
	op := metrics.Op{
		Sync: o.sync, Code: o.code, Dedup: o.dedup, Faulted: o.faulted, Chat: int(o.chat),
		Allocated: o.allocated, AllocateNanos: allocateNanos, Steps: o.steps,
	}
	switch o.kind {
	case history.KindOK:
		op.Outcome = metrics.OK
	case history.KindFail:
		op.Outcome = metrics.Fail
	default:
		op.Outcome = metrics.Info
	}
	return op
}

func (c *Counts) addOp(o opCounts) {
	c.Operations++
	if o.sync {
		c.Syncs++
	} else {
		c.Persists++
		c.Attempts += o.attempts
		c.MaxTxAttempts = max(c.MaxTxAttempts, o.attempts)
		if o.faulted {
			c.FaultsInjected++
		}
	}
	switch o.kind {
	case history.KindOK:
		c.OK++
		if o.sync {
			c.SyncOK++
		} else {
			c.PersistOK++
		}
		if o.dedup {
			c.Dedup++
		}
	case history.KindFail:
		c.Fail++
		if o.sync {
			c.SyncFail++
		}
		c.ErrorCodes[o.code]++
	default:
		c.Info++
		if o.sync {
			c.SyncInfo++
		}
		c.ErrorCodes[o.code]++
	}
}
