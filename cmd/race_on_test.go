//go:build race

package cmd

// raceEnabled: the race detector slows every run several times over;
// test.sh runs this package under it after running it without.
const raceEnabled = true
