//go:build race

package delivery

// The race detector slows chatseq's checker about tenfold, so the
// cross-check runs fewer histories under it.
const raceEnabled = true
