package checker

import "github.com/chatseq/chatseq/checker/internal/store"

// StringHashForTest exposes stringHash to the external tests.
var StringHashForTest = stringHash

// ResetPeakRSS and PeakRSS measure a benchmark's resident high-water mark
// from outside the package (BenchmarkCheckProfile).
var ResetPeakRSS, PeakRSS = resetPeakRSS, peakRSS

// SpillKeepForTest makes Logs spill all but keep full blocks of each kind
// (store.SpillKeepForTest).
var SpillKeepForTest = store.SpillKeepForTest

// SpilledForTest is how many bytes the Feed's Log spilled, once checked.
func (f *Feed) SpilledForTest() (spilled, readBack int64) {
	return f.log.SpilledBytes, f.log.ReadBackBytes
}

// RaceDetectorOn: the external tests shorten their long runs under the
// race detector as the package's own do.
const RaceDetectorOn = raceEnabled
