package checker

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/chatseq/chatseq/checker/linearize"
	"github.com/chatseq/chatseq/history"
)

// BenchmarkExactHotChat decides one hot chat with the exact checker alone,
// from its model: B/op is what it allocates, peak-heap-MB the most the heap
// held while it ran (the history's index included, reported apart).
func BenchmarkExactHotChat(b *testing.B) {
	for _, ops := range []int{300_000} {
		b.Run(fmt.Sprint(ops), func(b *testing.B) {
			h := generate(genConfig{chats: 1, writers: 64, readers: 4, ops: ops, crash: 0.01, replay: 0.02, limit: 50, seed: 1})
			x := indexOf(h)
			con := history.Contract{Gaps: history.GapsAllowed, KeyReuse: history.KeyReuseReturnOriginal}
			x.KindsOf(false)
			runtime.GC()
			base := heapObjects()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				s := startSampler()
				m, _ := x.ChatModel(0, con, false)
				out := linearize.Exact(m, nil)
				peak := s.finish()
				if out.Status != linearize.Pass {
					b.Fatalf("%s: %s", out.Status, out.Detail)
				}
				b.ReportMetric(float64(base)/(1<<20), "index-MB")
				b.ReportMetric(float64(peak-min(peak, base))/(1<<20), "peak-heap-MB")
			}
		})
	}
}
