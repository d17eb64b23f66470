package cmd

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// startProfile writes a CPU profile of the whole command to the file named
// by CHATSEQ_CPUPROFILE, and a heap profile at its end to the one named by
// CHATSEQ_MEMPROFILE, for measuring where a run or a check spends its time
// and memory (go tool pprof FILE). It returns the function that stops it.
func startProfile() (stop func(), err error) {
	if path := os.Getenv("CHATSEQ_MEMPROFILE"); path != "" {
		runtime.MemProfileRate = 64 << 10
		defer func(cpuStop *func()) {
			inner := *cpuStop
			*cpuStop = func() {
				inner()
				if f, err := os.Create(path); err == nil {
					pprof.Lookup("allocs").WriteTo(f, 0)
					f.Close()
				}
			}
		}(&stop)
	}
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
