package cmd

import (
	"fmt"

	"github.com/KimMachineGun/automemlimit/memlimit"
)

// memoryShare is the share of the memory chatseq may use (its cgroup's
// limit, else the machine's) that the Go runtime's soft limit is set to.
// Most of a check's heap is garbage between collections: without a limit
// the runtime lets it grow to twice what is live (checking a 6M-line
// history: 4.1 GB resident; with a 2 GB limit, 2.0 GB and 7% slower), so
// a run a small machine or CI runner could hold would be killed for memory.
const memoryShare = 0.8

// limitMemory sets the soft memory limit, unless GOMEMLIMIT is set (the
// runtime already obeys it) or AUTOMEMLIMIT says otherwise ("off", or
// another share in (0, 1]). It returns the limit in bytes.
func limitMemory() (int64, error) {
	limit, err := memlimit.Set(
		memlimit.WithRatio(memoryShare),
		memlimit.WithProvider(machineMemory),
	)
	if err != nil {
		return limit, fmt.Errorf("setting the memory limit: %w (AUTOMEMLIMIT takes a share in (0, 1] or \"off\")", err)
	}
	return limit, nil
}
