package bench

import (
	"fmt"
	"runtime/metrics"
	"time"

	"github.com/dustin/go-humanize"
)

// MemoryStopShare is the share of Config.MemoryCeiling at which the
// writers stop: what is left is for recording the final state and for the
// runtime, whose soft limit (80% of the memory by default) makes the
// collector run without pause once the live heap nears it.
const MemoryStopShare = 0.7

// memoryEvery is how often the watch reads the process's memory.
const memoryEvery = 100 * time.Millisecond

// watchMemory calls stop once the memory the runtime holds from the system
// reaches MemoryStopShare of ceiling, and returns why; it returns "" when
// quit closes first.
func watchMemory(ceiling int64, quit <-chan struct{}, stop func()) string {
	limit := int64(MemoryStopShare * float64(ceiling))
	tick := time.NewTicker(memoryEvery)
	defer tick.Stop()
	for {
		select {
		case <-quit:
			return ""
		case <-tick.C:
		}
		if held := heldMemory(); held >= limit {
			stop()
			return fmt.Sprintf("the process held %s, over %.0f%% of the %s it can have (the embedded store keeps every message in memory)",
				humanize.IBytes(uint64(held)), 100*MemoryStopShare, humanize.IBytes(uint64(ceiling)))
		}
	}
}

// heldMemory is what the runtime has mapped and not given back: about the
// process's resident memory.
func heldMemory() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}
