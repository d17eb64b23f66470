//go:build race

package bench

// raceEnabled: the race detector slows the long single-goroutine sweeps
// several times over; test.sh runs this package under it after running
// it without, so there they sweep less.
const raceEnabled = true
