package cmd

import (
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// withLimit runs f with the runtime's soft memory limit at limit, and puts
// the one before back afterwards.
func withLimit(t *testing.T, limit int64, f func()) {
	t.Helper()
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(limit))
	f()
}

// limitAfterCollections collects until the memory limit differs from
// before (the growthLimit's finalizer runs after a collection, on a
// goroutine of its own) or ten seconds have passed, and returns it.
func limitAfterCollections(before int64) int64 {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		runtime.GC()
		if limit := debug.SetMemoryLimit(-1); limit != before {
			return limit
		}
		time.Sleep(10 * time.Millisecond)
	}
	return debug.SetMemoryLimit(-1)
}

// collectAFewTimes collects three times, leaving a finalizer each time to
// run: for what must not change.
func collectAFewTimes() {
	for range 3 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

// After a collection the limit is the live heap plus the growth allowed,
// and stopping puts the limit before back, for good.
func TestGrowthLimitFollowsTheLiveHeap(t *testing.T) {
	const ceiling, growth, held = 1 << 40, 64 << 20, 100 << 20
	withLimit(t, ceiling, func() {
		live := make([]byte, held)
		for i := range live {
			live[i] = byte(i)
		}
		stop := limitGrowth(func(int64) int64 { return growth })
		got := limitAfterCollections(ceiling)
		runtime.KeepAlive(live)
		if got < held+growth || got > 4*held {
			stop()
			t.Fatalf("limit %d with %d bytes held live and %d of growth: want the live heap plus the growth", got, held, growth)
		}
		stop()
		if got := debug.SetMemoryLimit(-1); got != ceiling {
			t.Fatalf("limit %d after stop, want the one before, %d", got, ceiling)
		}
		collectAFewTimes()
		if got := debug.SetMemoryLimit(-1); got != ceiling {
			t.Fatalf("limit %d after stop and collections, want %d", got, ceiling)
		}
	})
}

// The limit never rises above the one in force before (GOMEMLIMIT's, or
// automemlimit's share of the machine).
func TestGrowthLimitStaysUnderTheLimitBefore(t *testing.T) {
	const ceiling = 8 << 20 // below any live heap plus the growth
	withLimit(t, ceiling, func() {
		stop := limitGrowth(func(int64) int64 { return 64 << 20 })
		defer stop()
		collectAFewTimes()
		if got := debug.SetMemoryLimit(-1); got != ceiling {
			t.Fatalf("limit %d, want it held at the limit before, %d", got, ceiling)
		}
	})
}

// The ways the collector is set: for the check, and for bench's writers on
// an in-process target and on a remote one.
var collectors = map[string]func() (restore func()){"check": collectForCheck, "run": collectForRun, "remote run": collectForRemoteRun}

// forEachCollector runs f for each of collectors, with the memory limit at
// ceiling and the collector's percent at 100, both put back after.
func forEachCollector(t *testing.T, ceiling int64, f func(name string, collect func() (restore func()))) {
	for name, collect := range collectors {
		withLimit(t, ceiling, func() {
			defer debug.SetGCPercent(debug.SetGCPercent(100))
			f(name, collect)
		})
	}
}

// A user who chose GOGC chose the collector's policy: the check and the
// run keep both the percent and the limit as they were.
func TestCollectForCheckLeavesAChosenGOGCAlone(t *testing.T) {
	t.Setenv("GOGC", "100")
	const ceiling = 1 << 40
	forEachCollector(t, ceiling, func(name string, collect func() (restore func())) {
		restore := collect()
		defer restore()
		collectAFewTimes()
		if got := debug.SetMemoryLimit(-1); got != ceiling {
			t.Fatalf("%s: limit %d with GOGC set, want it left at %d", name, got, ceiling)
		}
		if got := debug.SetGCPercent(100); got != 100 {
			t.Fatalf("%s: collector percent %d with GOGC=100, want it left at 100", name, got)
		}
	})
}

// The check and the run hold the heap's growth, and put the limit and the
// percent back when done.
func TestCollectForCheckHoldsTheHeapsGrowth(t *testing.T) {
	if gogc, had := os.LookupEnv("GOGC"); had {
		os.Unsetenv("GOGC")
		defer os.Setenv("GOGC", gogc)
	}
	const ceiling = 1 << 40
	forEachCollector(t, ceiling, func(name string, collect func() (restore func())) {
		restore := collect()
		got := limitAfterCollections(ceiling)
		restore()
		if got >= ceiling {
			t.Fatalf("%s: limit %d meanwhile, want it held under %d", name, got, ceiling)
		}
		if got := debug.SetMemoryLimit(-1); got != ceiling {
			t.Fatalf("%s: limit %d after, want %d", name, got, ceiling)
		}
		if got := debug.SetGCPercent(100); got != 100 {
			t.Fatalf("%s: collector percent %d after, want 100 back", name, got)
		}
	})
}

// The check after a run sets the collector's percent alone: the memory
// limit stays as it was, so the runtime keeps the pages the run's store
// left for the check to reuse.
func TestCollectForRunCheckLeavesTheLimitAlone(t *testing.T) {
	if gogc, had := os.LookupEnv("GOGC"); had {
		os.Unsetenv("GOGC")
		defer os.Setenv("GOGC", gogc)
	}
	const ceiling = 1 << 40
	withLimit(t, ceiling, func() {
		defer debug.SetGCPercent(debug.SetGCPercent(100))
		restore := collectForRunCheck()
		collectAFewTimes()
		limit, percent := debug.SetMemoryLimit(-1), debug.SetGCPercent(checkGCPercent)
		restore()
		if limit != ceiling {
			t.Fatalf("limit %d during the check after a run, want it left at %d", limit, ceiling)
		}
		if percent != checkGCPercent {
			t.Fatalf("collector percent %d during the check after a run, want %d", percent, checkGCPercent)
		}
		if got := debug.SetGCPercent(100); got != 100 {
			t.Fatalf("collector percent %d after, want 100 back", got)
		}
	})
}
