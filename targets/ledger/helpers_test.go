package ledger

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/sequencer"
	tg "github.com/chatseq/chatseq/target"
)

// benchConfig is a short run under the ledger's contract (no Kafka: the
// ledger publishes nothing).
func benchConfig(t *testing.T, writers, chats int, d time.Duration) bench.Config {
	cfg := bench.DefaultConfig()
	cfg.Writers, cfg.Chats, cfg.Duration = writers, chats, d
	cfg.Contract, cfg.Target, cfg.KafkaOff = Contract, Name, true
	cfg.HistoryPath = filepath.Join(t.TempDir(), "history.jsonl")
	return cfg
}

// testConfig is DefaultConfig with faults frequent enough for a short run.
func testConfig() Config {
	c := DefaultConfig()
	c.CrashEvery, c.TransferEvery, c.RestartAfter = 400*time.Millisecond, 100*time.Millisecond, 200*time.Millisecond
	return c
}

// runAndCheck drives the target through the runner and checks the history.
func runAndCheck(t *testing.T, cfg bench.Config, lc Config) (*bench.Result, checker.Report, Counts) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var counts Counts
	factory := func(ctx context.Context, env tg.Env) (tg.Target, error) {
		tgt, err := Factory(lc)(ctx, env)
		if err != nil {
			return nil, err
		}
		return &countingTarget{target: tgt.(*target), counts: &counts}, nil
	}
	res, err := bench.RunTarget(ctx, cfg, factory)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	h, err := history.ReadFile(cfg.HistoryPath)
	if err != nil {
		t.Fatalf("reading the history back: %v", err)
	}
	return res, checker.Check(h, checker.Options{}), counts
}

// countingTarget keeps the nemesis's counts past Close.
type countingTarget struct {
	*target
	counts *Counts
}

func (c *countingTarget) Close() error {
	*c.counts = c.target.Faults()
	return c.target.Close()
}

// variantOf passes a target variant through the runner's Variant field.
func variantOf(v Variant) sequencer.Variant { return sequencer.Variant(v) }
