package sequencer

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/chatseq/chatseq/store/memstore"
)

// BenchmarkWatermarkSideBySide measures what the sync watermark costs the
// writers: 16 goroutines persist to one hot chat of the embedded store
// (Kafka off, no faults), on the core as written and with SyncWatermark,
// and report persists/s and the p50, p99 and p99.9 of a persist call (the
// ACK's wait for lower sequences included). Run the two in alternation,
// several times, on a quiet machine:
//
//	go test ./sequencer -run '^$' -bench WatermarkSideBySide -benchtime 200000x -count 4
func BenchmarkWatermarkSideBySide(b *testing.B) {
	for _, v := range []Variant{Correct, SyncWatermark} {
		name := string(v)
		if name == "" {
			name = "as-written"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			core, err := New(Config{Store: memstore.New(), Variant: v})
			if err != nil {
				b.Fatal(err)
			}
			if err := core.CreateChat(ctx, "A", []string{"alice"}); err != nil {
				b.Fatal(err)
			}
			const writers = 16
			lat := make([][]time.Duration, writers)
			var wg sync.WaitGroup
			b.ResetTimer()
			began := time.Now()
			for w := range writers {
				n := b.N / writers
				if w < b.N%writers {
					n++
				}
				lat[w] = make([]time.Duration, 0, n)
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range n {
						start := time.Now()
						if _, err := core.Persist(ctx, Request{Chat: "A", Key: fmt.Sprintf("w%d-%d", w, i), Sender: "alice", Content: "x"}, nil); err != nil {
							b.Error(err)
							return
						}
						lat[w] = append(lat[w], time.Since(start))
					}
				}()
			}
			wg.Wait()
			elapsed := time.Since(began)
			b.StopTimer()
			all := slices.Concat(lat...)
			slices.Sort(all)
			at := func(q float64) float64 { return float64(all[int(q*float64(len(all)-1))].Nanoseconds()) }
			b.ReportMetric(float64(len(all))/elapsed.Seconds(), "persists/s")
			b.ReportMetric(at(0.5), "p50-ns")
			b.ReportMetric(at(0.99), "p99-ns")
			b.ReportMetric(at(0.999), "p99.9-ns")
		})
	}
}
