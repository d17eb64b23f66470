// Package timings prints how long the phases of a run or a check take, to
// standard error, when CHATSEQ_TIMINGS is set: for finding where the time
// after the writers goes without a profiler.
//
// Each line gives the wall time and the CPU time the whole process used
// meanwhile (user and system, every goroutine): on a shared machine the
// CPU time is what a change to a phase moves, while its wall time also
// moves with whatever else runs.
package timings

import (
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"sync"
	"syscall"
	"time"
)

var (
	on = os.Getenv("CHATSEQ_TIMINGS") != ""
	// Start is about when the process started: what comes before the
	// writers or after the last phase shows only as time since it.
	Start = time.Now()
	mu    sync.Mutex
)

// Since prints the time from began to now under name.
func Since(name string, began time.Time) {
	if !on {
		return
	}
	print(name, time.Since(began), cpuTime{total: -1})
}

// Note prints a line of figures about the phases (what a phase moved).
func Note(format string, args ...any) {
	if !on {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	fmt.Fprintf(os.Stderr, "timing: "+format+"\n", args...)
}

// Phase starts a phase; the function it returns prints it. Meanwhile the
// calling goroutine, and those it starts, carry the profiler label
// phase=name, so a CPU profile of a whole run (CHATSEQ_CPUPROFILE) can be
// cut to one phase: go tool pprof -tagfocus phase=linearizability.
func Phase(name string) func() {
	if !on {
		return func() {}
	}
	pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels("phase", name)))
	stopProfile := profilePhase(name)
	began, cpu := time.Now(), processCPU()
	return func() {
		stopProfile()
		now := processCPU()
		print(name, time.Since(began), cpuTime{now.total - cpu.total, now.sys - cpu.sys})
		// Labels cannot be read back, so an enclosing phase's is not
		// restored: what follows an inner phase goes unlabelled.
		pprof.SetGoroutineLabels(context.Background())
	}
}

// profilePhase starts a CPU profile of the whole process, every goroutine,
// to the file CHATSEQ_PHASE_CPUPROFILE names when name is the phase
// CHATSEQ_PHASE names: a phase's share of a run-long profile misses the
// goroutines started before it (the http transport's, the history
// writer's), which carry no label. It returns the function that stops it.
func profilePhase(name string) func() {
	path := os.Getenv("CHATSEQ_PHASE_CPUPROFILE")
	if path == "" || os.Getenv("CHATSEQ_PHASE") != name {
		return func() {}
	}
	stop, err := StartCPUProfile(path)
	if err != nil {
		Note("CHATSEQ_PHASE_CPUPROFILE: %v", err)
		return func() {}
	}
	return stop
}

// StartCPUProfile writes a CPU profile to a new file at path until the
// function it returns is called.
func StartCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// cpuTime is CPU time, user and system, and the system part of it (page
// faults and file writes are most of it).
type cpuTime struct{ total, sys time.Duration }

func print(name string, wall time.Duration, cpu cpuTime) {
	mu.Lock()
	defer mu.Unlock()
	if cpu.total < 0 {
		fmt.Fprintf(os.Stderr, "timing: %-36s %8.3fs\n", name, wall.Seconds())
		return
	}
	fmt.Fprintf(os.Stderr, "timing: %-36s %8.3fs  cpu %7.3fs  sys %6.3fs\n", name, wall.Seconds(), cpu.total.Seconds(), cpu.sys.Seconds())
}

// processCPU is the CPU time the process has used so far.
func processCPU() cpuTime {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return cpuTime{}
	}
	return cpuTime{total: time.Duration(u.Utime.Nano() + u.Stime.Nano()), sys: time.Duration(u.Stime.Nano())}
}
