package bench_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/internal/appendfile"
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
// its persists/s divided by BenchmarkPersistBare's is chatseq's overhead;
// the check reads the history as it is written, and the online check
// judges it, as chatseq bench does.
func BenchmarkPersistRecorded(b *testing.B) {
	rate, cpu := runRate(b, b.N)
	b.ReportMetric(rate, "persists/s")
	b.ReportMetric(cpu.total, "cpu-ns")
}

// BenchmarkPersistSideBySide runs the three above, b.N persists each, four
// times each in sideBySideOrder, and reports each kind's rate over its
// phases and the ratios. This machine's speed drifts by a third over
// minutes and dips for seconds at a time: in this order every kind's
// phases have the same mean position (a steady drift weighs on each
// alike), and no kind runs twice in a row, so a dip of a few seconds lands
// on several kinds rather than on one.
func BenchmarkPersistSideBySide(b *testing.B) {
	var bare, recorded, run sideBySide
	phases := []struct {
		into *sideBySide
		rate func() (float64, cpuUse)
	}{
		{&bare, func() (float64, cpuUse) { return timedLoop(b, false) }},
		{&recorded, func() (float64, cpuUse) { return timedLoop(b, true) }},
		{&run, func() (float64, cpuUse) { return runRate(b, b.N) }},
	}
	for _, i := range sideBySideOrder {
		startAfresh()
		rate, cpu := phases[i].rate()
		phases[i].into.add(b.N, rate, cpu)
	}
	// After the phases: each one's ResetTimer drops metrics reported before.
	b.ReportMetric(bare.rate(), "bare/s")
	b.ReportMetric(recorded.rate(), "loop-recorded/s")
	b.ReportMetric(run.rate(), "run/s")
	b.ReportMetric(recorded.rate()/bare.rate(), "loop-ratio")
	b.ReportMetric(run.rate()/bare.rate(), "run-ratio")
	for _, k := range []struct {
		name string
		kind *sideBySide
	}{{"bare", &bare}, {"loop-recorded", &recorded}, {"run", &run}} {
		use := k.kind.cpuPerPersist()
		b.ReportMetric(use.total, k.name+"-cpu-ns")
		b.ReportMetric(use.gc, k.name+"-gc-ns")
		b.ReportMetric(use.sys, k.name+"-sys-ns")
		b.ReportMetric(use.faults, k.name+"-faults")
	}
}

// BenchmarkPersistRunParts is where a run's CPU goes, layer by layer: the
// bare loop, a run writing its history with no check, with the check's
// Log, and with the online check too (chatseq bench), b.N persists each,
// in sideBySideOrder's pattern over four kinds. Each kind's CPU time per
// persist, and the layers' differences, are what the run-ratio is made
// of: it reaches 0.5 only when the run's CPU a persist is at most twice
// the bare loop's.
func BenchmarkPersistRunParts(b *testing.B) {
	kinds := []struct {
		name string
		rate func() (float64, cpuUse)
		sum  sideBySide
	}{
		{name: "bare", rate: func() (float64, cpuUse) { return timedLoop(b, false) }},
		{name: "recorded", rate: func() (float64, cpuUse) { return runCheckedRate(b, b.N, checkNone, func(*bench.Config) {}) }},
		{name: "log", rate: func() (float64, cpuUse) { return runCheckedRate(b, b.N, checkLog, func(*bench.Config) {}) }},
		{name: "online", rate: func() (float64, cpuUse) { return runCheckedRate(b, b.N, checkLogAndOnline, func(*bench.Config) {}) }},
	}
	// Each kind once in every position over the rounds, no kind twice
	// in a row.
	for round := range len(kinds) {
		for i := range kinds {
			k := &kinds[(i+round)%len(kinds)]
			startAfresh()
			rate, cpu := k.rate()
			k.sum.add(b.N, rate, cpu)
		}
	}
	cpuOf := func(i int) float64 { return kinds[i].sum.cpuPerPersist().total }
	for i, k := range kinds {
		use := k.sum.cpuPerPersist()
		b.ReportMetric(cpuOf(i), k.name+"-cpu-ns")
		b.ReportMetric(use.sys, k.name+"-sys-ns")
		b.ReportMetric(use.faults, k.name+"-faults")
	}
	b.ReportMetric(cpuOf(1)-cpuOf(0), "recording-ns")
	b.ReportMetric(cpuOf(2)-cpuOf(1), "log-ns")
	b.ReportMetric(cpuOf(3)-cpuOf(2), "online-ns")
	b.ReportMetric(kinds[3].sum.rate()/kinds[0].sum.rate(), "run-ratio")
}

// BenchmarkPersistAroundTheCache is a whole run (chatseq bench's: the
// Log and the online check on) with its history and the Log's spills
// written around the page cache (appendfile), as a run writes them, and
// through it, b.N persists each, alternating ABBA BAAB so each way has
// the same mean position. A separate process for each way would compare
// the machine's memory as much as the ways: a page this VM's guest has
// not touched lately costs several times one it has.
func BenchmarkPersistAroundTheCache(b *testing.B) {
	ways := []struct {
		name   string
		cached bool
		sum    sideBySide
	}{{name: "around", cached: false}, {name: "through", cached: true}}
	defer appendfile.ThroughTheCache(false)
	for _, i := range []int{0, 1, 1, 0, 1, 0, 0, 1} {
		w := &ways[i]
		appendfile.ThroughTheCache(w.cached)
		startAfresh()
		rate, cpu := runCheckedRate(b, b.N, checkLogAndOnline, func(*bench.Config) {})
		w.sum.add(b.N, rate, cpu)
	}
	for _, w := range ways {
		b.ReportMetric(w.sum.rate(), w.name+"/s")
		b.ReportMetric(w.sum.cpuPerPersist().total, w.name+"-cpu-ns")
	}
	b.ReportMetric(ways[0].sum.rate()/ways[1].sum.rate(), "around/through")
}

// sideBySideOrder is the phases' order: 0 bare, 1 loop-recorded, 2 run.
// Each kind's positions add up to 22.
var sideBySideOrder = []int{0, 1, 2, 0, 2, 1, 2, 1, 0, 1, 2, 0}

// sideBySide sums the phases of one kind: persists, seconds and CPU.
type sideBySide struct {
	persists int
	seconds  float64
	cpu      cpuUse // per persist, summed over phases
	phases   int
}

func (s *sideBySide) add(n int, rate float64, cpu cpuUse) {
	s.persists += n
	s.seconds += float64(n) / rate
	s.cpu.total += cpu.total
	s.cpu.gc += cpu.gc
	s.cpu.sys += cpu.sys
	s.cpu.faults += cpu.faults
	s.phases++
}

// rate is persists per second over all the kind's phases.
func (s *sideBySide) rate() float64 { return float64(s.persists) / s.seconds }

func (s *sideBySide) cpuPerPersist() cpuUse {
	n := float64(s.phases)
	return cpuUse{total: s.cpu.total / n, gc: s.cpu.gc / n, sys: s.cpu.sys / n, faults: s.cpu.faults / n}
}

// timedLoop is loopRate with the CPU time per persist it took.
func timedLoop(b *testing.B, record bool) (float64, cpuUse) {
	since := cpuNow()
	rate := loopRate(b, b.N, record)
	return rate, since.perPersist(b.N)
}

// cpuUse is CPU time in nanoseconds: the process's (user and system), the
// part of it the runtime puts down to the garbage collector, and the
// system's part; and the minor page faults taken. On this VM a page the
// guest has not touched lately costs microseconds to fault in, so a kind's
// faults weigh on its rate as much as its code does.
type cpuUse struct{ total, gc, sys, faults float64 }

// cpuNow is the CPU time this process has used so far.
func cpuNow() cpuUse {
	var u syscall.Rusage
	var total, sys time.Duration
	var faults float64
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err == nil {
		total = time.Duration(u.Utime.Nano() + u.Stime.Nano())
		sys, faults = time.Duration(u.Stime.Nano()), float64(u.Minflt)
	}
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(s)
	var gc float64
	if s[0].Value.Kind() == metrics.KindFloat64 {
		gc = s[0].Value.Float64() * 1e9
	}
	return cpuUse{total: float64(total), gc: gc, sys: float64(sys), faults: faults}
}

// perPersist is the CPU time per persist since c (setup included).
func (c cpuUse) perPersist(n int) cpuUse {
	now := cpuNow()
	per := func(now, then float64) float64 { return (now - then) / float64(n) }
	return cpuUse{total: per(now.total, c.total), gc: per(now.gc, c.gc), sys: per(now.sys, c.sys), faults: per(now.faults, c.faults)}
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
		path := filepath.Join(b.TempDir(), "history.jsonl")
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		// Gone once measured: phases back to back would otherwise leave
		// gigabytes for the kernel to write back under the next phase.
		defer os.Remove(path)
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
			tr := &history.ProcessTracer{Rec: rec, Process: w + 1}
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
func persistOne(ctx context.Context, core *sequencer.Core, rec *history.Recorder, tr *history.ProcessTracer, chat, sender string, i int64) error {
	req := sequencer.Request{Chat: chat, Key: "k" + strconv.FormatInt(i, 10), Sender: sender, Content: "message"}
	if rec == nil {
		_, err := core.Persist(ctx, req, nil)
		return err
	}
	rec.Record(&history.Event{Kind: history.KindInvoke, Process: tr.Process, F: history.FPersist, Chat: req.Chat, Key: req.Key, Sender: req.Sender})
	out, err := core.Persist(ctx, req, tr)
	if err != nil {
		return err
	}
	rec.Record(&history.Event{Kind: history.KindOK, Process: tr.Process, F: history.FPersist, Chat: req.Chat, Key: req.Key, Seq: out.Seq, MessageID: out.MessageID})
	return nil
}

// runRate is a whole bench run of n persists, faults and syncs off, Kafka
// off: its persists per second over the writers' time, and the process's
// CPU time per persist until the writers stopped.
func runRate(b *testing.B, n int) (rate float64, cpu cpuUse) {
	return runRateWith(b, n, func(*bench.Config) {})
}

// runRateWith is runRate with the config changed by set first.
func runRateWith(b *testing.B, n int, set func(*bench.Config)) (rate float64, cpu cpuUse) {
	return runCheckedRate(b, n, checkLogAndOnline, set)
}

// runCheck is how much of the check a run in runCheckedRate does while its
// writers go.
type runCheck int

const (
	checkNone         runCheck = iota // no tap: the history file alone
	checkLog                          // the Log the check after the run reads
	checkLogAndOnline                 // and the online check: chatseq bench
)

// runCheckedRate is a whole bench run of n persists, faults and syncs off,
// Kafka off, with the check kind says: its persists per second over the
// writers' time, and the process's CPU time per persist until the
// writers stopped. A run with the online check is checked after its
// writers, and fails the benchmark unless it passes.
func runCheckedRate(b *testing.B, n int, kind runCheck, set func(*bench.Config)) (rate float64, cpu cpuUse) {
	cfg := bench.DefaultConfig()
	cfg.Writers, cfg.Chats, cfg.Ops, cfg.Duration = loopWorkers, benchChats, n, 0
	cfg.Faults = bench.FaultRates{}
	cfg.DuplicateAfterOK, cfg.ConcurrentDuplicate, cfg.SyncRatio = 0, 0, 0
	cfg.KafkaOff = true
	cfg.HistoryPath = filepath.Join(b.TempDir(), "history.jsonl")
	defer os.Remove(cfg.HistoryPath) // as in loopRate
	set(&cfg)
	since := cpuNow()
	cfg.Progress = func(p bench.Progress) {
		if p.Done {
			cpu = since.perPersist(n)
		}
	}
	// As chatseq bench runs: the check reads the history while it is
	// written, on the same cores as the writers, and the online check
	// judges what operations alone prove as they complete.
	var violations atomic.Int64
	var feed *checker.Feed
	switch kind {
	case checkLog:
		feed = checker.NewFeed(cfg.HistoryPath)
	case checkLogAndOnline:
		feed = checker.NewOnlineFeed(cfg.HistoryPath, checker.NewOnline(func(checker.Violation) { violations.Add(1) }))
	}
	if feed != nil {
		cfg.HistoryTap = feed.Tap()
	}
	b.ResetTimer()
	res, err := bench.Run(context.Background(), cfg, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	switch kind {
	case checkLog:
		feed.Discard()
	case checkLogAndOnline:
		// Labelled, so a profile of the benchmark can leave the check
		// out: -tagignore phase=check.
		var rep checker.Report
		pprof.Do(context.Background(), pprof.Labels("phase", "check"), func(context.Context) {
			rep, _, err = feed.Check(checker.Options{})
		})
		if err != nil || rep.ExitCode() != 0 || violations.Load() != 0 {
			b.Fatalf("the run's check: exit %d, %v, %d violations online", rep.ExitCode(), err, violations.Load())
		}
	}
	b.StartTimer()
	return float64(res.Counts.Persists) / res.Elapsed.Seconds(), cpu
}
