package checker

// StringHashForTest exposes stringHash to the external tests.
var StringHashForTest = stringHash

// ResetPeakRSS and PeakRSS measure a benchmark's resident high-water mark
// from outside the package (BenchmarkCheckProfile).
var ResetPeakRSS, PeakRSS = resetPeakRSS, peakRSS
