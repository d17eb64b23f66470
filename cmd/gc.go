package cmd

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// checkGCPercent is the collector's target while a history is judged. The
// checker's records hold few pointers, so collecting twice as often costs
// no measurable time, while the default (100) let a million-operation
// check's heap reach twice what it held live: 1.39 GB of memory against
// 1.17 GB at 50, the same CPU time (chatseq check of
// 'go run ./tools/histgen -persists 1000000 -hot').
const checkGCPercent = 50

// runGCPercent is the collector's target while bench's writers run. What
// a run keeps grows with every operation (the embedded store's messages,
// the check's records, the topic's events), and nearly all of it is
// pointer-free blocks, which a collection does not scan: collecting at
// a quarter's growth rather than a doubling held a default 30 s run to
// 753 MB against 1.03 GB at 100 (923 MB at 50), at the same CPU time and
// rate, and with less system time (fewer fresh pages to fault in).
const runGCPercent = 25

// collectForRun sets the collector for bench's writers on an in-process
// target, unless the user chose GOGC: runGCPercent, and past 512 MiB live
// the heap's growth held to runGrowth (growthLimit). It returns what puts
// both back.
func collectForRun() (restore func()) { return collectWithin(runGCPercent, runGrowth) }

// runGrowth is how much a run's heap may grow past what the last
// collection found live: an eighth, or 128 MiB when that is more. At
// runGCPercent's quarter a default one-minute run peaked at 1.51 GB
// resident for 2.29M operations, when the writers had grown faster.
func runGrowth(live int64) int64 { return max(live/8, 128<<20) }

// remoteRunGCPercent is the collector's target while bench's writers run
// against a target in another process (--target http): the default, since
// collecting at a quarter stretched the latency tail there (bench.go).
const remoteRunGCPercent = 100

// collectForRemoteRun sets the collector for bench's writers on a remote
// target, unless the user chose GOGC: the default percent, and the heap's
// growth past what the last collection found live held to
// remoteRunGrowth (growthLimit). It returns what puts both back.
func collectForRemoteRun() (restore func()) {
	return collectWithin(remoteRunGCPercent, remoteRunGrowth)
}

// remoteRunGrowth is how much a remote run's heap may grow past what is
// live: an eighth, or 64 MiB when that is more. What such a run keeps is
// the check's records and the online check's (the store is the
// service's), and at the default percent the process's memory followed
// twice that: 'go run ./tools/soakmem -duration 2m' grew about 850 bytes
// of resident memory an operation after its first minute, for about 385
// bytes of live heap. Held to this, memory follows the live heap plus a
// constant (plus an eighth past 512 MiB live); below 64 MiB live the
// percent is the stricter and this changes nothing, above it a collection
// comes at most every 64 MiB allocated (a few seconds at 2,000 sends a
// second).
func remoteRunGrowth(live int64) int64 { return max(live/8, 64<<20) }

// collectForCheck sets the collector for the check, unless the user chose
// GOGC, and returns what puts it back (bench runs its next target after).
// Besides the target, the heap's growth between collections is held to
// checkGrowth of what was live (growthLimit).
func collectForCheck() (restore func()) { return collectWithin(checkGCPercent, checkGrowth) }

// collectForRunCheck sets the collector for the check at the end of a
// bench run: the target alone, without checkGrowth's limit. The run has
// already taken more memory than its check will (the store it let go
// before the check), so the limit saved no peak there, while it made the
// runtime hand back the freed pages and collect every few hundred
// megabytes, and the check faulted fresh pages in again (about 0.45 s of
// system time a gigabyte on this machine): after a 10 s run of 4.7-4.9M
// operations the check took 3.12-3.23 s and 5.97-6.11 s of CPU without
// it, 3.39-3.49 s and 6.39-6.56 s with it, at the same peak (2.56-2.67
// against 2.61-2.65 GB), runs alternating.
func collectForRunCheck() (restore func()) { return collectWithin(checkGCPercent, nil) }

// collectWithin sets the collector's target to percent and, unless growth
// is nil, holds the heap's growth past what is live to growth(live),
// unless the user chose GOGC; it returns what puts both back.
func collectWithin(percent int, growth func(live int64) int64) (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	was := debug.SetGCPercent(percent)
	stop := func() {}
	if growth != nil {
		stop = limitGrowth(growth)
	}
	return func() {
		stop()
		debug.SetGCPercent(was)
	}
}

// checkGrowth is how much a large check's heap may grow past what the last
// collection found live: an eighth of it, or 128 MiB when that is more.
// checkGCPercent's half of a 5M-persist check's 1.45 GB was 0.7 GB of
// garbage, and with the free pages the runtime kept, 2.6-2.9 GB of
// memory; held to 256 MiB, 1.8 GB. The check's records are pointer-free
// blocks, which a collection marks without scanning: the 16 more
// collections took 0.1 s of CPU in all. Held to 128 MiB rather than 256,
// the 2M-persist zipf profile (histgen -profile zipf, 750 MB live at its
// peak) peaked at 924-933 MB resident against 1,048-1,077 MB, and the
// heavy-sync one at 763-778 against 819-838 MB, at the same CPU time
// within the noise (runs alternating on a loaded machine). Below 256 MiB
// live the percent is the stricter and this changes nothing.
func checkGrowth(live int64) int64 { return max(live/8, 128<<20) }

// growthLimit holds the runtime's soft memory limit at the live heap plus
// growth(live), set anew after every collection; a limit rather than the
// collector's percent so that the runtime also returns the pages it frees
// (below its percent it keeps them, a fifth of a large check's memory). As
// it follows the live heap it never makes the collector run without pause,
// as a fixed limit does once the heap outgrows it, and it never fails a
// check: it stays soft, and never above the limit in force before
// (GOMEMLIMIT's, or automemlimit's share of the machine).
type growthLimit struct {
	mu      sync.Mutex
	ceiling int64
	growth  func(live int64) int64
	stopped bool
}

// limitGrowth starts a growthLimit; stop puts the limit in force before
// back.
func limitGrowth(growth func(live int64) int64) (stop func()) {
	g := &growthLimit{ceiling: debug.SetMemoryLimit(-1), growth: growth}
	g.arm()
	return func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		g.stopped = true
		debug.SetMemoryLimit(g.ceiling)
	}
}

// collectionSentinel is garbage as soon as it is made, so that its
// finalizer runs after the next collection. It holds a pointer so that it
// is never one of the tiny allocator's objects, whose finalizers may never
// run.
type collectionSentinel struct{ _ *byte }

func (g *growthLimit) arm() { runtime.SetFinalizer(&collectionSentinel{}, g.collected) }

func (g *growthLimit) collected(*collectionSentinel) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped {
		return
	}
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	n := int64(live[0].Value.Uint64())
	debug.SetMemoryLimit(min(g.ceiling, n+g.growth(n)))
	g.arm()
}
