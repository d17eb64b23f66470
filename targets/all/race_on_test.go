//go:build race

package all_test

// raceEnabled: the race detector slows every run several times over.
const raceEnabled = true
