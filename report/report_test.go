package report

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/history"
)

func benchReport(t *testing.T) Bench {
	t.Helper()
	cfg := bench.DefaultConfig()
	cfg.Writers, cfg.Chats, cfg.Ops, cfg.Duration, cfg.KafkaOff = 3, 2, 500, 0, true
	cfg.HistoryPath = filepath.Join(t.TempDir(), "h.jsonl")
	res, err := bench.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	h, err := history.ReadFile(cfg.HistoryPath)
	if err != nil {
		t.Fatal(err)
	}
	return FromBench(res, "embedded", checker.Check(h, checker.Options{}))
}

func TestFromBenchFigures(t *testing.T) {
	b := benchReport(t)
	// 500 planned operations; retries, duplicates and racing twins add
	// attempts, each an operation of the history.
	if b.Operations < 500 || b.Persists+b.Syncs != b.Operations {
		t.Fatalf("operations %d = persists %d + syncs %d, want at least 500", b.Operations, b.Persists, b.Syncs)
	}
	// Without deleted counters, gaps are allocated sequences never persisted.
	if b.Gaps != b.Allocated-b.Persisted || b.GapRate != float64(b.Gaps)/float64(b.Allocated) {
		t.Fatalf("gaps %d, rate %v; want %d = allocated %d - persisted %d, over allocated", b.Gaps, b.GapRate, b.Allocated-b.Persisted, b.Allocated, b.Persisted)
	}
	if b.PersistOK == 0 || b.IdempotencyHit != float64(b.Dedup)/float64(b.PersistOK) {
		t.Fatalf("idempotency hit rate %v from dedup %d / persist ok %d", b.IdempotencyHit, b.Dedup, b.PersistOK)
	}
	var steps []string
	for _, p := range b.Latency {
		steps = append(steps, p.Step)
		if p.Count > 0 && !(p.P50 <= p.P90 && p.P90 <= p.P99 && p.P99 <= p.P999 && p.P999 <= p.Max) {
			t.Fatalf("%s percentiles out of order: %+v", p.Step, p)
		}
	}
	if strings.Join(steps, ",") != "allocate,persist,publish,end_to_end,service,sync" {
		t.Fatalf("steps %v", steps)
	}
}

func TestTextAndJSON(t *testing.T) {
	b := benchReport(t)
	var text bytes.Buffer
	if err := WriteText(&text, b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"operations", "gap rate", "idempotency hit rate", "allocate", "p99.9", "sequence_uniqueness", "verdict: PASS"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, b); err != nil {
		t.Fatal(err)
	}
	var back Bench
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Operations != b.Operations || back.Check.Valid == nil || !*back.Check.Valid || len(back.Latency) != len(b.Latency) {
		t.Fatalf("JSON round trip lost figures: %+v", back)
	}
}

func TestComparisonTable(t *testing.T) {
	a, b := benchReport(t), benchReport(t)
	a.Run.Target, b.Run.Target = "memory", "dynamodb-local"
	var out bytes.Buffer
	if err := WriteComparison(&out, []Bench{a, b}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], "memory") || !strings.Contains(lines[2], "dynamodb-local") || !strings.Contains(lines[0], "allocate p99") {
		t.Fatalf("comparison table:\n%s", out.String())
	}
}

func TestLatencyUnits(t *testing.T) {
	for ms, want := range map[float64]string{0.00018: "180ns", 0.0123: "12.3µs", 4.56: "4.56ms", 1234: "1.23s"} {
		if got := fms(ms); got != want {
			t.Errorf("fms(%v) = %q, want %q", ms, got, want)
		}
	}
	for ns, want := range map[float64]string{
		0: "0ns", 999: "999ns", 999.7e3: "1ms", 1234: "1.23µs", 50.03e6: "50ms", 2.5e9: "2.5s", 999.9e6: "1s",
	} {
		if got := FormatLatency(ns); got != want {
			t.Errorf("FormatLatency(%g) = %q, want %q", ns, got, want)
		}
	}
}
