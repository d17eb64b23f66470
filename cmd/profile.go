package cmd

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startProfile writes a CPU profile of the whole command to the file named
// by CHATSEQ_CPUPROFILE, for measuring where a run or a check spends its
// time (go tool pprof FILE). It returns the function that stops it.
func startProfile() (stop func(), err error) {
	path := os.Getenv("CHATSEQ_CPUPROFILE")
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("CHATSEQ_CPUPROFILE: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("CHATSEQ_CPUPROFILE: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
