// Package timings prints how long the phases of a run or a check take, to
// standard error, when CHATSEQ_TIMINGS is set: for finding where the time
// after the writers goes without a profiler.
package timings

import (
	"fmt"
	"os"
	"sync"
	"time"
)

var (
	on = os.Getenv("CHATSEQ_TIMINGS") != ""
	mu sync.Mutex
)

// Since prints the time from began to now under name.
func Since(name string, began time.Time) {
	if !on {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	fmt.Fprintf(os.Stderr, "timing: %-36s %8.3fs\n", name, time.Since(began).Seconds())
}

// Phase starts a phase; the function it returns prints it.
func Phase(name string) func() {
	if !on {
		return func() {}
	}
	began := time.Now()
	return func() { Since(name, began) }
}
