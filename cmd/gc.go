package cmd

import (
	"os"
	"runtime/debug"
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

// collectForCheck sets the collector for the check, unless the user chose
// GOGC, and returns what puts it back (bench runs its next target after).
func collectForCheck() (restore func()) { return collectAt(checkGCPercent) }

// collectAt sets the collector's target to percent, unless the user chose
// GOGC, and returns what puts it back.
func collectAt(percent int) (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	was := debug.SetGCPercent(percent)
	return func() { debug.SetGCPercent(was) }
}
