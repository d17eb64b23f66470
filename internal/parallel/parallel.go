// Package parallel runs independent pieces of work side by side: the
// checker builds its index's views, judges its invariants and decides its
// chats' linearizability this way.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// ForEach calls f(0..n-1) on up to workers goroutines.
func ForEach(workers, n int, f func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(i)
			}
		})
	}
	wg.Wait()
}

// RunAll runs tasks on GOMAXPROCS goroutines.
func RunAll(tasks []func()) {
	ForEach(runtime.GOMAXPROCS(0), len(tasks), func(i int) { tasks[i]() })
}
