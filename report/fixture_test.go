package report

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/target"
)

// The tests share two saved runs, made as `chatseq bench --out` makes
// them. The healthy one drives the correct core with Kafka through an
// outage, a slow store window and a stall; the faulty one a core that
// acknowledges before persisting, so invariants fail, porcupine draws a
// chat, and a counter is deleted mid-run.
var (
	fixtures    = map[string]*fixtureRun{}
	fixturesMu  sync.Mutex
	fixtureRoot string
)

type fixtureRun struct {
	once  sync.Once
	err   error
	dir   string
	res   *bench.Result
	saved *Saved
}

// fixtureGenerated is the report's "generated at" time in the fixtures.
var fixtureGenerated = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

func TestMain(m *testing.M) {
	var err error
	fixtureRoot, err = os.MkdirTemp("", "chatseq-report-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(fixtureRoot)
	os.Exit(code)
}

func healthyRun(t *testing.T) *fixtureRun { return fixtureFor(t, "healthy", healthyConfig) }

// fixtureCommand stands for the command line a run records: the fixtures
// are made by the test, not by one.
func fixtureCommand(dir string) string {
	return "chatseq bench --out " + dir + " (a report test fixture)"
}
func faultyRun(t *testing.T) *fixtureRun { return fixtureFor(t, "faulty", faultyConfig) }

func fixtureFor(t *testing.T, name string, config func(dir string) bench.Config) *fixtureRun {
	t.Helper()
	fixturesMu.Lock()
	f, ok := fixtures[name]
	if !ok {
		f = &fixtureRun{dir: filepath.Join(fixtureRoot, name)}
		fixtures[name] = f
	}
	fixturesMu.Unlock()
	f.once.Do(func() { f.err = f.make(config(f.dir)) })
	if f.err != nil {
		t.Fatal(f.err)
	}
	return f
}

func healthyConfig(dir string) bench.Config {
	cfg := bench.DefaultConfig()
	cfg.Writers, cfg.Chats, cfg.Rate, cfg.Duration = 4, 8, 400, 3*time.Second
	cfg.Timed = []target.TimedFault{
		{Kind: target.KafkaOutage, At: 600 * time.Millisecond, For: 500 * time.Millisecond},
		{Kind: target.StoreLatency, At: 1500 * time.Millisecond, For: 500 * time.Millisecond, Latency: 5 * time.Millisecond},
		{Kind: target.StoreStall, At: 2300 * time.Millisecond, For: 200 * time.Millisecond},
	}
	cfg.HistoryPath = filepath.Join(dir, HistoryFile)
	return cfg
}

func faultyConfig(dir string) bench.Config {
	cfg := bench.DefaultConfig()
	// Open-loop writers send evenly spread (one every 1/rate): at 300/s a
	// sync rarely fell between an ack and its persist, and the variant
	// went unseen by linearizability; at 2000/s it is caught every run.
	cfg.Writers, cfg.Chats, cfg.Rate, cfg.Duration = 8, 2, 2000, 3*time.Second
	cfg.Variant = sequencer.AckBeforePersist
	cfg.SyncRatio = 0.3
	// Replays and crashes would let the checker refute linearizability
	// from two contradicting acks without running porcupine, and then
	// there is no drawing to link.
	cfg.DuplicateAfterOK, cfg.ConcurrentDuplicate = 0, 0
	cfg.Faults = bench.FaultRates{PublishFail: 0.02}
	cfg.Timed = []target.TimedFault{
		{Kind: target.KafkaOutage, At: 700 * time.Millisecond, For: 500 * time.Millisecond},
		{Kind: target.DeleteCounter, At: 2600 * time.Millisecond, Chat: 1},
	}
	cfg.HistoryPath = filepath.Join(dir, HistoryFile)
	return cfg
}

func (f *fixtureRun) make(cfg bench.Config) error {
	if err := os.MkdirAll(f.dir, 0o755); err != nil {
		return err
	}
	res, err := bench.Run(context.Background(), cfg, nil)
	if err != nil {
		return err
	}
	rep, _, err := checker.CheckFile(res.Config.HistoryPath, checker.Options{VisualizeDir: filepath.Join(f.dir, VisualizeDir), Interval: res.IntervalLength})
	if err != nil {
		return err
	}
	saved, err := SaveRun(f.dir, res, FromBench(res, "ADR-004 core, embedded", rep), fixtureCommand(f.dir))
	if err != nil {
		return err
	}
	if err := saved.WriteReport(fixtureGenerated); err != nil {
		return err
	}
	f.res, f.saved = res, saved
	return nil
}
