package bench_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/internal/evidence"
)

// An open-loop rate is an even pace across the writers, as vegeta's is:
// writer w first sends w/rate after writer 0, not with it. Writers in step
// sent every interval as one burst, and the burst's queue made the http
// target's p99 at 500 ops/s over 64 writers twenty times vegeta's.
func TestOpenLoopWritersSendEvenlyNotInBursts(t *testing.T) {
	cfg := bench.DefaultConfig()
	// 200 ms between one writer's operations, 25 ms between writers.
	cfg.Writers, cfg.Chats, cfg.Duration, cfg.Rate = 8, 8, 2*time.Second, 40
	cfg.Faults = bench.FaultRates{}
	cfg.DuplicateAfterOK, cfg.ConcurrentDuplicate, cfg.SyncRatio = 0, 0, 0
	cfg.KafkaOff = true
	// A run in which the machine held many starts past a whole interval
	// (a tenth, or any start never made) shows how the machine woke the
	// writers, not how they were paced: it runs again.
	evidence.Rerun(t, evidence.Default, func(int) string {
		cfg.HistoryPath = filepath.Join(t.TempDir(), "h.jsonl")
		res, err := bench.Run(context.Background(), cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if l := res.Lateness; l.Unsent > 0 || l.Late*10 > l.Started {
			return fmt.Sprintf("the machine held the writers: %d of %d starts more than an interval (%s) late, the latest %s, %d never made", l.Late, l.Started, l.Threshold, l.MaxLag, l.Unsent)
		}
		requireEvenSends(t, cfg)
		return ""
	})
}

// requireEvenSends fails t unless the writers of the open-loop run cfg
// made keep schedules 1/rate apart: writer w's k-th send is due at
// start + w/rate + k·writers/rate, and sent then or later (never early).
// The earliest of a writer's sends against its own schedule, less w/rate,
// is the run's start plus that writer's smallest lag: about the same for
// every writer when their schedules are spaced as they should be, spread
// over writers/rate when they are in step (bursts). Judged by the writers'
// median deviation from the median start, so that a few sends, or a few
// writers, held up by a busy machine move it little: the gap between
// consecutive sends, judged before, shrank to nothing on a starved machine
// whose writers woke together after each pause.
func requireEvenSends(t *testing.T, cfg bench.Config) {
	t.Helper()
	h, err := history.ReadFile(cfg.HistoryPath)
	if err != nil {
		t.Fatal(err)
	}
	spacing := time.Duration(float64(time.Second) / cfg.Rate)
	interval := time.Duration(cfg.Writers) * spacing
	// Without faults a writer keeps its process id (its own number) and
	// sends its operations in order, one at a time.
	sent := map[int]int{}
	starts := map[int]time.Duration{}
	for _, e := range h.Events {
		if e.Kind != history.KindInvoke {
			continue
		}
		k := sent[e.Process]
		sent[e.Process]++
		start := time.Duration(e.Time) - time.Duration(k)*interval - time.Duration(e.Process)*spacing
		if old, ok := starts[e.Process]; !ok || start < old {
			starts[e.Process] = start
		}
	}
	if len(starts) != cfg.Writers {
		t.Fatalf("%d processes sent, want %d writers", len(starts), cfg.Writers)
	}
	for w, n := range sent {
		if n < 2 {
			t.Fatalf("writer %d sent %d times in %v at %v ops/s, want at least 2", w, n, cfg.Duration, cfg.Rate)
		}
	}
	var all []time.Duration
	for _, s := range starts {
		all = append(all, s)
	}
	mid := median(all)
	var dev []time.Duration
	for _, s := range all {
		dev = append(dev, (s - mid).Abs())
	}
	if d := median(dev); d >= spacing/2 {
		t.Errorf("the writers' schedules deviate from one start by %v (median), want under %v: writer w's are not w/rate = w·%v after writer 0's (sends come in bursts)", d, spacing/2, spacing)
	}
}

func median(ds []time.Duration) time.Duration {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return ds[len(ds)/2]
}
