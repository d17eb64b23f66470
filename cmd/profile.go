package cmd

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/chatseq/chatseq/internal/timings"
)

// startProfile writes a CPU profile of the whole command to the file named
// by CHATSEQ_CPUPROFILE, and a heap profile at its end to the one named by
// CHATSEQ_MEMPROFILE, for measuring where a run or a check spends its time
// and memory (go tool pprof FILE). It returns the function that stops it.
//
// CHATSEQ_HEAPPROFILE=FILE with CHATSEQ_HEAPPROFILE_AT=DURATION writes the
// live heap (after a collection) once, that long after the command starts:
// what a run keeps while its writers go, which the profile at the end no
// longer shows.
func startProfile() (stop func(), err error) {
	if path := os.Getenv("CHATSEQ_HEAPPROFILE"); path != "" {
		at, err := time.ParseDuration(os.Getenv("CHATSEQ_HEAPPROFILE_AT"))
		if err != nil {
			return nil, fmt.Errorf("CHATSEQ_HEAPPROFILE_AT: %w", err)
		}
		runtime.MemProfileRate = 64 << 10
		time.AfterFunc(at, func() {
			runtime.GC()
			if f, err := os.Create(path); err == nil {
				pprof.Lookup("heap").WriteTo(f, 0)
				f.Close()
			}
		})
	}
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
	stop, err = timings.StartCPUProfile(path)
	if err != nil {
		return nil, fmt.Errorf("CHATSEQ_CPUPROFILE: %w", err)
	}
	return stop, nil
}
