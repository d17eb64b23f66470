package bench_test

import (
	"context"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/store/memstore"
)

const benchChats = 64

// BenchmarkPersistBare is the reference: the same core and store, persists
// in a tight parallel loop, no history, no faults, Kafka off.
func BenchmarkPersistBare(b *testing.B) {
	st := memstore.New()
	core, err := sequencer.New(sequencer.Config{Store: st})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	chats, sender := make([]string, benchChats), bench.SenderID(0)
	for i := range chats {
		chats[i] = bench.ChatID(i)
		if err := core.CreateChat(ctx, chats[i], []string{sender}); err != nil {
			b.Fatal(err)
		}
	}
	var next atomic.Int64
	b.SetParallelism(4)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			n := next.Add(1)
			req := sequencer.Request{
				Chat: chats[n%benchChats], Key: "k" + strconv.FormatInt(n, 10),
				Sender: sender, Content: "message",
			}
			if _, err := core.Persist(ctx, req, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "persists/s")
}

// BenchmarkPersistRecorded is a full bench run (writers, schedule, history
// streamed to a file, latency histograms) with faults and syncs off, so
// its persists/s divided by BenchmarkPersistBare's is chatseq's overhead.
func BenchmarkPersistRecorded(b *testing.B) {
	cfg := bench.DefaultConfig()
	cfg.Writers, cfg.Chats, cfg.Ops, cfg.Duration = 8, benchChats, b.N, 0
	cfg.Faults = bench.FaultRates{}
	cfg.DuplicateAfterOK, cfg.ConcurrentDuplicate, cfg.SyncRatio = 0, 0, 0
	cfg.KafkaOff = true
	cfg.HistoryPath = filepath.Join(b.TempDir(), "history.jsonl")
	b.ResetTimer()
	res, err := bench.Run(context.Background(), cfg, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(res.Counts.Persists)/res.Elapsed.Seconds(), "persists/s")
}
