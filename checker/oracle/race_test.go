//go:build race

package oracle

// The race detector slows the checker tenfold: the cross-check then runs
// fewer histories (the plain run in test.sh runs the full count).
const raceEnabled = true
