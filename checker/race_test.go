//go:build race

package checker

// raceEnabled: the race detector slows the random cross-checks several
// times over, and they are single-goroutine logic but for the checks they
// call: under it they run fewer histories (randomRuns).
const raceEnabled = true
