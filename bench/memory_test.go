package bench_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/history"
)

// Writers stop early once the process holds most of the memory it can
// have, and say so; what ran is recorded whole. Without a ceiling they run
// their duration.
func TestWritersStopNearTheMemoryCeiling(t *testing.T) {
	cfg := bench.DefaultConfig()
	cfg.Writers, cfg.Chats, cfg.Duration, cfg.KafkaOff = 2, 2, time.Minute, true
	cfg.HistoryPath = filepath.Join(t.TempDir(), "h.jsonl")
	cfg.MemoryCeiling = 1 << 20 // any process holds more than 70% of 1 MiB
	res, err := bench.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Elapsed > 10*time.Second || !strings.Contains(res.StoppedForMemory, "of the 1.0 MiB it can have") {
		t.Fatalf("a 1-minute run under a 1 MiB ceiling ran %s, stopped for memory: %q", res.Elapsed, res.StoppedForMemory)
	}
	h, err := history.ReadFile(cfg.HistoryPath)
	if err != nil || len(h.Finals) == 0 {
		t.Fatalf("the stopped run's history: %v, %d final lines", err, len(h.Finals))
	}

	cfg.MemoryCeiling, cfg.Duration = 0, 300*time.Millisecond
	if res, err = bench.Run(context.Background(), cfg, nil); err != nil || res.StoppedForMemory != "" || res.Elapsed < 300*time.Millisecond {
		t.Fatalf("without a ceiling: %v, ran %s, stopped for memory %q", err, res.Elapsed, res.StoppedForMemory)
	}
}
