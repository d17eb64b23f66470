package postgres

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/history"
	pgserver "github.com/chatseq/chatseq/localserver/postgres"
	tg "github.com/chatseq/chatseq/target"
)

// shared is the throwaway cluster the tests share; every run gets a schema
// of its own, so they do not see each other.
var shared *pgserver.Cluster

func TestMain(m *testing.M) {
	c, err := pgserver.Start(context.Background())
	if err != nil {
		// Missing binaries fail the package, never skip it.
		fmt.Fprintf(os.Stderr, "FAIL: the postgres target's tests need a PostgreSQL server: %v\n", err)
		os.Exit(1)
	}
	shared = c
	code := m.Run()
	if err := c.Stop(); err != nil && code == 0 {
		fmt.Fprintf(os.Stderr, "FAIL: stopping the cluster: %v\n", err)
		code = 1
	}
	os.Exit(code)
}

// cluster returns the shared cluster.
func cluster(t *testing.T) *pgserver.Cluster {
	t.Helper()
	if shared == nil {
		t.Fatal("TestMain did not start the shared cluster")
	}
	return shared
}

// benchConfig is a short run against the target's topic and contract.
func benchConfig(t *testing.T, writers, chats int, d time.Duration) bench.Config {
	cfg := bench.DefaultConfig()
	cfg.Writers, cfg.Chats, cfg.Duration = writers, chats, d
	cfg.Topic, cfg.Contract, cfg.Target, cfg.Claims = Topic, Contract, Name, Claims
	cfg.HistoryPath = filepath.Join(t.TempDir(), "history.jsonl")
	return cfg
}

// runAndCheck drives the target through the runner and checks the history.
func runAndCheck(t *testing.T, cfg bench.Config, tc Config) (*bench.Result, checker.Report, *history.History) {
	t.Helper()
	return runAndCheckWrapped(t, cfg, tc, nil)
}

// runAndCheckWrapped is runAndCheck with each target the runner builds
// wrapped by wrap, if not nil (to count what the target was asked).
func runAndCheckWrapped(t *testing.T, cfg bench.Config, tc Config, wrap func(tg.Target) tg.Target) (*bench.Result, checker.Report, *history.History) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if tc.DSN == "" {
		tc.DSN = cluster(t).DSN()
	}
	factory := Factory(tc)
	if wrap != nil {
		inner := factory
		factory = func(ctx context.Context, env tg.Env) (tg.Target, error) {
			tgt, err := inner(ctx, env)
			if err != nil {
				return nil, err
			}
			return wrap(tgt), nil
		}
	}
	res, err := bench.RunTarget(ctx, cfg, factory)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	keepHistoryOnFailure(t, cfg.HistoryPath)
	h, err := history.ReadFile(cfg.HistoryPath)
	if err != nil {
		t.Fatalf("reading the history back: %v", err)
	}
	return res, checker.Check(h, checker.Options{}), h
}

// topicOrder counts, per chat and partition in offset order, events with a
// lower sequence than the event before them, and duplicate events.
func topicOrder(h *history.History) (inversions, duplicates int) {
	var evs []history.Final
	for _, f := range h.Finals {
		if f.Table == history.TableEvents {
			evs = append(evs, f)
		}
	}
	sort.SliceStable(evs, func(i, j int) bool {
		a, b := evs[i], evs[j]
		if a.Chat != b.Chat {
			return a.Chat < b.Chat
		}
		if a.Partition != b.Partition {
			return a.Partition < b.Partition
		}
		return a.Offset < b.Offset
	})
	seen := map[string]bool{}
	for i, e := range evs {
		id := e.Chat + "/" + e.MessageID
		if seen[id] {
			duplicates++
		}
		seen[id] = true
		if i > 0 && evs[i-1].Chat == e.Chat && evs[i-1].Partition == e.Partition && e.Seq < evs[i-1].Seq {
			inversions++
		}
	}
	return inversions, duplicates
}

// noFaults turns off every per-operation fault.
func noFaults() bench.FaultRates { return bench.FaultRates{} }

// keepHistoryOnFailure copies a failed test's history out of its temporary
// directory (which the test removes) so the counterexample can be read.
func keepHistoryOnFailure(t *testing.T, path string) {
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return
		}
		kept := filepath.Join(os.TempDir(), "chatseq-failed-"+strings.ReplaceAll(t.Name(), "/", "_")+".jsonl")
		if os.WriteFile(kept, data, 0o644) == nil {
			t.Logf("history kept at %s", kept)
		}
	})
}
