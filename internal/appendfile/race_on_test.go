//go:build race

package appendfile

// raceEnabled: the race detector slows the long read-back sweeps tenfold;
// test.sh runs this package under it after running it without, so there
// they sweep less.
const raceEnabled = true
