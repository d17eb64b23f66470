package bench

import (
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
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

// latencyShard is a set of histograms shared by a few writers: one per
// writer would cost memory linear in writers, one for all would contend.
type latencyShard struct {
	mu       sync.Mutex
	hists    [stepCount]*hdrhistogram.Histogram
	interval intervalShard // the same values, per second (timeseries.go)
}

type latencies struct {
	shards [histShards]latencyShard
	series *series
}

func newLatencies() *latencies {
	l := &latencies{series: &series{}}
	for i := range l.shards {
		l.shards[i].interval = newIntervalShard(l.series)
		for s := range l.shards[i].hists {
			l.shards[i].hists[s] = newHistogram()
		}
	}
	return l
}

func (l *latencies) shard(writer int) *latencyShard { return &l.shards[writer%histShards] }

// record adds values, skipping steps that did not run (0).
func (s *latencyShard) record(values [stepCount]int64) {
	now := time.Now()
	s.mu.Lock()
	for step, v := range values {
		if v > 0 {
			_ = s.hists[step].RecordValue(min(v, histHighest))
		}
	}
	s.interval.record(now, values)
	s.mu.Unlock()
}

// merged returns one histogram per step.
func (l *latencies) merged() map[Step]*hdrhistogram.Histogram {
	out := make(map[Step]*hdrhistogram.Histogram, stepCount)
	for _, step := range Steps() {
		h := newHistogram()
		for i := range l.shards {
			h.Merge(l.shards[i].hists[step])
		}
		out[step] = h
	}
	return out
}
