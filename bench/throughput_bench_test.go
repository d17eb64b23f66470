package bench_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
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
func BenchmarkPersistBare(b *testing.B) {
	b.ReportMetric(loopRate(b, b.N, false), "persists/s")
}

// BenchmarkPersistLoopRecorded is the same loop writing what a run writes
// for each persist (invoke, allocate trace, completion) to a history file:
// the recorder's share of the full run's overhead.
func BenchmarkPersistLoopRecorded(b *testing.B) {
	b.ReportMetric(loopRate(b, b.N, true), "persists/s")
}

// BenchmarkPersistRecorded is a full bench run (writers, schedule, history
// streamed to a file, latency histograms) with faults and syncs off, so
// its persists/s divided by BenchmarkPersistBare's is chatseq's overhead.
func BenchmarkPersistRecorded(b *testing.B) {
	rate, _ := runRate(b, b.N)
	b.ReportMetric(rate, "persists/s")
}

// BenchmarkPersistSideBySide runs the three above back to back, b.N
// persists each, and reports the ratios of each pair: this machine's speed
// drifts by a third over minutes, so a ratio is only fair between runs
// made within seconds of each other.
func BenchmarkPersistSideBySide(b *testing.B) {
	cpu := processCPU()
	bare := loopRate(b, b.N, false)
	bareCPU := perPersist(&cpu, b.N)
	startAfresh()
	cpu = processCPU()
	recorded := loopRate(b, b.N, true)
	recordedCPU := perPersist(&cpu, b.N)
	startAfresh()
	run, runCPU := runRate(b, b.N)
	// After the phases: each one's ResetTimer drops metrics reported before.
	b.ReportMetric(bare, "bare/s")
	b.ReportMetric(recorded, "loop-recorded/s")
	b.ReportMetric(run, "run/s")
	b.ReportMetric(recorded/bare, "loop-ratio")
	b.ReportMetric(run/bare, "run-ratio")
	b.ReportMetric(bareCPU, "bare-cpu-ns")
	b.ReportMetric(recordedCPU, "loop-recorded-cpu-ns")
	b.ReportMetric(runCPU, "run-cpu-ns")
}

// processCPU is the CPU time this process has used, user and system.
func processCPU() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// perPersist is the CPU time per persist since *since (setup included),
// and moves *since to now.
func perPersist(since *time.Duration, n int) float64 {
	now := processCPU()
	d := now - *since
	*since = now
	return float64(d.Nanoseconds()) / float64(n)
}

// startAfresh hands the previous phase's memory back to the system, so
// each phase faults its memory in as a fresh process does.
func startAfresh() { debug.FreeOSMemory() }

// loopWorkers is how many goroutines the loop benchmarks persist from, as
// many as a default run's writers.
const loopWorkers = 8

// loopRate persists n messages over benchChats chats from loopWorkers
// goroutines and returns persists per second; with record, each persist
// writes its invoke, allocate trace and completion to a history file.
func loopRate(b *testing.B, n int, record bool) float64 {
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
	var next atomic.Int64
	var failed atomic.Pointer[error]
	var wg sync.WaitGroup
	b.ResetTimer()
	started := time.Now()
	for w := range loopWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tr := &loopTracer{rec: rec, process: w + 1}
			for i := next.Add(1); i <= int64(n); i = next.Add(1) {
				if err := persistOne(ctx, core, rec, tr, chats[i%benchChats], sender, i); err != nil {
					failed.Store(&err)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(started)
	if err := failed.Load(); err != nil {
		b.Fatal(*err)
	}
	return float64(n) / elapsed.Seconds()
}

// persistOne persists message i, recording it when rec is not nil.
func persistOne(ctx context.Context, core *sequencer.Core, rec *history.Recorder, tr *loopTracer, chat, sender string, i int64) error {
	req := sequencer.Request{Chat: chat, Key: "k" + strconv.FormatInt(i, 10), Sender: sender, Content: "message"}
	if rec == nil {
		_, err := core.Persist(ctx, req, nil)
		return err
	}
	rec.Record(&history.Event{Kind: history.KindInvoke, Process: tr.process, F: history.FPersist, Chat: req.Chat, Key: req.Key, Sender: req.Sender})
	out, err := core.Persist(ctx, req, tr)
	if err != nil {
		return err
	}
	rec.Record(&history.Event{Kind: history.KindOK, Process: tr.process, F: history.FPersist, Chat: req.Chat, Key: req.Key, Seq: out.Seq, MessageID: out.MessageID})
	return nil
}

// runRate is a whole bench run of n persists, faults and syncs off, Kafka
// off: its persists per second over the writers' time, and the process's
// CPU time per persist until the writers stopped.
func runRate(b *testing.B, n int) (rate, cpuPerPersist float64) {
	cfg := bench.DefaultConfig()
	cfg.Writers, cfg.Chats, cfg.Ops, cfg.Duration = loopWorkers, benchChats, n, 0
	cfg.Faults = bench.FaultRates{}
	cfg.DuplicateAfterOK, cfg.ConcurrentDuplicate, cfg.SyncRatio = 0, 0, 0
	cfg.KafkaOff = true
	cfg.HistoryPath = filepath.Join(b.TempDir(), "history.jsonl")
	cpu := processCPU()
	cfg.Progress = func(p bench.Progress) {
		if p.Done {
			cpuPerPersist = perPersist(&cpu, n)
		}
	}
	b.ResetTimer()
	res, err := bench.Run(context.Background(), cfg, nil)
	if err != nil {
		b.Fatal(err)
	}
	return float64(res.Counts.Persists) / res.Elapsed.Seconds(), cpuPerPersist
}

// loopTracer records allocate traces on the recorder's clock.
type loopTracer struct {
	rec     *history.Recorder
	process int
}

func (t *loopTracer) Now() int64 { return t.rec.Now() }

func (t *loopTracer) Allocated(chat string, seq uint64, start, end int64) {
	t.rec.RecordAt(&history.Event{Kind: history.KindTrace, F: history.FAllocate, Process: t.process, Chat: chat, Seq: seq, Start: start, HasStart: true}, end)
}
