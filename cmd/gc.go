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

// collectForCheck sets the collector for the check, unless the user chose
// GOGC, and returns what puts it back (bench runs its next target after).
func collectForCheck() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	was := debug.SetGCPercent(checkGCPercent)
	return func() { debug.SetGCPercent(was) }
}
