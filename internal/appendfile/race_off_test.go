//go:build !race

package appendfile

const raceEnabled = false
