package checker

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatseq/chatseq/history"
)

// heapSampler records the peak of live heap objects while it runs.
type heapSampler struct {
	peak atomic.Uint64
	stop chan struct{}
	done chan struct{}
}

func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func startSampler() *heapSampler {
	h := &heapSampler{stop: make(chan struct{}), done: make(chan struct{})}
	h.peak.Store(heapObjects())
	go func() {
		defer close(h.done)
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-h.stop:
				return
			case <-t.C:
				if v := heapObjects(); v > h.peak.Load() {
					h.peak.Store(v)
				}
			}
		}
	}()
	return h
}

func (h *heapSampler) finish() uint64 {
	close(h.stop)
	<-h.done
	return h.peak.Load()
}

// resetPeakRSS restarts VmHWM from the current resident set (Linux ≥ 4.0),
// so that the generator's garbage does not count as the checker's peak.
func resetPeakRSS() {
	debug.FreeOSMemory()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// peakRSS is the process's high-water resident set (VmHWM), in bytes.
func peakRSS() uint64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseUint(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

func benchCheck(b *testing.B, h *history.History, wantUnknownLinearizability bool) {
	runtime.GC()
	base := heapObjects()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		resetPeakRSS()
		s := startSampler()
		r := Check(h, Options{})
		peak := s.finish()
		b.StopTimer()
		b.ReportMetric(float64(base)/(1<<20), "history-MB")
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		b.ReportMetric(float64(peak-min(peak, base))/(1<<20), "check-heap-MB")
		b.ReportMetric(float64(peakRSS())/(1<<20), "peak-RSS-MB")
		for _, res := range r.Invariants {
			lin := res.Name == NameLinearizability
			if res.Status == Fail || (res.Status == Unknown && !(lin && wantUnknownLinearizability)) {
				b.Fatalf("%s = %s: %s", res.Name, res.Status, res.Detail)
			}
		}
		b.StartTimer()
	}
}

// BenchmarkCheckHotChat1M: one chat, 64 writers and 4 readers, a million
// operations with traces, crashes, replays and every final table.
func BenchmarkCheckHotChat1M(b *testing.B) {
	h := generate(genConfig{chats: 1, writers: 64, readers: 4, ops: 1_000_000, crash: 0.01, replay: 0.02, limit: 50, events: true, seed: 1})
	benchCheck(b, h, true)
}

// BenchmarkCheckSmallChats: 5000 chats of about 40 operations, each one
// decided by porcupine.
func BenchmarkCheckSmallChats(b *testing.B) {
	h := generate(genConfig{chats: 5000, writers: 64, readers: 8, ops: 200_000, crash: 0.01, replay: 0.02, limit: 10, events: true, seed: 2})
	benchCheck(b, h, false)
}
