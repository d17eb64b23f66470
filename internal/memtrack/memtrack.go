// Package memtrack keeps the memory a process holds close to what its
// garbage collector aims at. The Go runtime gives freed pages back to the
// system slowly (a background scavenger on about 1% of a core), so a check
// or a run whose heap changes shape fast held a third more than its heap
// goal: 1.29 GB resident for a million-operation check whose heap peaked
// at 883 MB. A soft memory limit a little above the goal makes the runtime
// give pages back as it allocates instead; kept above the goal, the limit
// never makes the collector run sooner than GOGC asks.
package memtrack

import (
	"math"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

const (
	every = 50 * time.Millisecond
	// headroom over the heap goal, and slack for what is not heap
	// (stacks, the runtime's own structures).
	headroom = 0.15
	slack    = 64 << 20
)

var once sync.Once

// Start tracks the heap goal until the process ends, never setting the
// limit above ceiling (the limit the process was started with).
func Start(ceiling int64) {
	once.Do(func() { go track(ceiling) })
}

func track(ceiling int64) {
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for range tick.C {
		metrics.Read(s)
		if s[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		debug.SetMemoryLimit(Limit(s[0].Value.Uint64(), ceiling))
	}
}

// Limit is the soft memory limit for a heap goal: the goal with headroom
// and slack, at most ceiling (none: math.MaxInt64).
func Limit(goal uint64, ceiling int64) int64 {
	if ceiling <= 0 {
		ceiling = math.MaxInt64
	}
	want := float64(goal)*(1+headroom) + slack
	if want >= float64(ceiling) {
		return ceiling
	}
	return int64(want)
}
