package bench_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/store/memstore"
)

const benchChats = 64

// BenchmarkPersistBare is the reference: the same core and store, persists
// in a tight parallel loop, no history, no faults, Kafka off.
func BenchmarkPersistBare(b *testing.B) { persistLoop(b, false) }

// BenchmarkPersistLoopRecorded is the same loop writing what a run writes
// for each persist (invoke, allocate trace, completion) to a history file:
// the recorder's share of the full run's overhead.
func BenchmarkPersistLoopRecorded(b *testing.B) { persistLoop(b, true) }

func persistLoop(b *testing.B, record bool) {
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
	var rec *history.Recorder
	if record {
		f, err := os.Create(filepath.Join(b.TempDir(), "history.jsonl"))
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		if rec, err = history.NewRecorder(f, history.Header{Target: "memory"}, 200*time.Millisecond); err != nil {
			b.Fatal(err)
		}
		defer rec.Close()
	}
	var next, processes atomic.Int64
	b.SetParallelism(4)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		tr := &loopTracer{rec: rec, process: int(processes.Add(1))}
		for pb.Next() {
			n := next.Add(1)
			req := sequencer.Request{
				Chat: chats[n%benchChats], Key: "k" + strconv.FormatInt(n, 10),
				Sender: sender, Content: "message",
			}
			if rec == nil {
				if _, err := core.Persist(ctx, req, nil); err != nil {
					b.Fatal(err)
				}
				continue
			}
			rec.Record(&history.Event{Kind: history.KindInvoke, Process: tr.process, F: history.FPersist, Chat: req.Chat, Key: req.Key, Sender: req.Sender})
			out, err := core.Persist(ctx, req, tr)
			if err != nil {
				b.Fatal(err)
			}
			rec.Record(&history.Event{Kind: history.KindOK, Process: tr.process, F: history.FPersist, Chat: req.Chat, Key: req.Key, Seq: out.Seq, MessageID: out.MessageID})
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "persists/s")
}

// loopTracer records allocate traces on the recorder's clock.
type loopTracer struct {
	rec     *history.Recorder
	process int
}

func (t *loopTracer) Now() int64 { return t.rec.Now() }

func (t *loopTracer) Allocated(chat string, seq uint64, start int64) {
	t.rec.Record(&history.Event{Kind: history.KindTrace, F: history.FAllocate, Process: t.process, Chat: chat, Seq: seq, Start: start, HasStart: true})
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
