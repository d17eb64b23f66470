package history

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkRecorderParallel records a realistic mix of lines (persist
// invoke, allocate trace, ok) from parallel goroutines into io.Discard.
func BenchmarkRecorderParallel(b *testing.B) {
	rec, err := NewRecorder(io.Discard, Header{Target: "bench"}, 0)
	if err != nil {
		b.Fatal(err)
	}
	var nextProcess atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		p := int(nextProcess.Add(1))
		invoke := Event{Kind: KindInvoke, Process: p, F: FPersist, Chat: "chat-000001",
			Key: fmt.Sprintf("key-%d-000000", p), Sender: "user-1", PayloadHash: "9e3779b97f4a7c15"}
		trace := Event{Kind: KindTrace, Process: p, F: FAllocate, Chat: invoke.Chat}
		ok := Event{Kind: KindOK, Process: p, F: FPersist, Chat: invoke.Chat, Key: invoke.Key, MessageID: "01J00000000000000000000000"}
		var n uint64
		for pb.Next() {
			switch n % 3 {
			case 0:
				rec.Record(&invoke)
			case 1:
				trace.Seq = n
				rec.Record(&trace)
			default:
				ok.Seq = n
				rec.Record(&ok)
			}
			n++
		}
	})
	b.StopTimer()
	if err := rec.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkRead reads a generated single-chat history of one million
// operations (about 2.9M lines) from a file, as the checker does. Besides
// time and throughput it reports the heap the result holds, the peak heap
// while reading, and all bytes allocated.
func BenchmarkRead(b *testing.B) {
	// ReadFile sizes its tables from a first pass over the file; a stream
	// (a pipe, say) cannot be read twice, so its events are gathered in
	// chunks and joined at the end.
	readers := []struct {
		name string
		read func(path string) (*History, error)
	}{
		{"ReadFile", ReadFile},
		{"stream", func(path string) (*History, error) {
			f, err := os.Open(path)
			if err != nil {
				return nil, err
			}
			defer f.Close()
			return Read(struct{ io.Reader }{f}, path) // hides the *os.File
		}},
	}
	const ops = 1_000_000
	for _, reader := range readers {
		b.Run(fmt.Sprintf("ops=%d/%s", ops, reader.name), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "history.jsonl")
			f, err := os.Create(path)
			if err != nil {
				b.Fatal(err)
			}
			if err := generateHistory(f, ops, 64); err != nil {
				b.Fatal(err)
			}
			if err := f.Close(); err != nil {
				b.Fatal(err)
			}
			st, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(st.Size())
			var held, peak, total float64
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				stopSampling := sampleHeap()
				b.StartTimer()

				h, err := reader.read(path)

				b.StopTimer()
				peakHeap := stopSampling()
				if err != nil {
					b.Fatal(err)
				}
				runtime.ReadMemStats(&after)
				held += float64(after.HeapAlloc - before.HeapAlloc)
				peak += float64(peakHeap - before.HeapAlloc)
				total += float64(after.TotalAlloc - before.TotalAlloc)
				if len(h.Events) < 2*ops {
					b.Fatalf("read %d events", len(h.Events))
				}
				runtime.KeepAlive(h)
				b.StartTimer()
			}
			n := float64(b.N)
			b.ReportMetric(held/n/(1<<20), "held-MB")
			b.ReportMetric(peak/n/(1<<20), "peak-heap-MB")
			b.ReportMetric(total/n/(1<<20), "alloc-MB/op")
			b.ReportMetric(float64(st.Size())/(1<<20), "file-MB")
		})
	}
}

// sampleHeap polls the live heap size until stopped; MemStats has no peak,
// and runtime/metrics can be read without stopping the world.
func sampleHeap() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	done := make(chan struct{})
	result := make(chan uint64)
	go func() {
		var peak uint64
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				metrics.Read(sample)
				result <- max(peak, sample[0].Value.Uint64())
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		return <-result
	}
}
