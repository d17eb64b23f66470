package bench_test

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/sequencer"
)

// smallRun is a short, fault-heavy run that exercises every path quickly.
func smallRun(t *testing.T, seed int64, variant sequencer.Variant, kafkaOff bool) (*bench.Result, checker.Report) {
	t.Helper()
	cfg := bench.DefaultConfig()
	cfg.Writers, cfg.Chats, cfg.Ops, cfg.Duration = 6, 3, 1500, 0
	cfg.Seed, cfg.Variant, cfg.KafkaOff = seed, variant, kafkaOff
	cfg.Faults = bench.FaultRates{StaleRead: 0.1, CrashAfterAllocate: 0.05, CrashInPersist: 0.05, CrashAfterPersist: 0.05, PublishFail: 0.05}
	cfg.DuplicateAfterOK, cfg.ConcurrentDuplicate, cfg.SyncRatio = 0.1, 0.1, 0.15
	return checkedRun(t, cfg)
}

// checkedRun runs cfg with the check fed in process, as chatseq bench
// does, and returns its report after requiring it to be the one
// CheckFile gives the history written.
func checkedRun(t *testing.T, cfg bench.Config) (*bench.Result, checker.Report) {
	t.Helper()
	cfg.HistoryPath = filepath.Join(t.TempDir(), "history.jsonl")
	feed := checker.NewFeed(cfg.HistoryPath)
	cfg.HistoryTap = feed.Tap()
	res, err := bench.Run(context.Background(), cfg, nil)
	if err != nil {
		feed.Discard()
		t.Fatal(err)
	}
	rep, _, err := feed.Check(checker.Options{})
	if err != nil {
		t.Fatalf("the in-process check: %v", err)
	}
	want, _, err := checker.CheckFile(cfg.HistoryPath, checker.Options{})
	if err != nil {
		t.Fatalf("the recorded history does not parse: %v", err)
	}
	rep.Stats.CheckMillis, want.Stats.CheckMillis = 0, 0
	if !reflect.DeepEqual(rep, want) {
		t.Fatalf("the in-process check and the file's differ:\n%+v\n%+v", rep, want)
	}
	return res, rep
}

// The in-process check is the file's whatever a run records: readers,
// reused keys, store errors and crashes before allocation, events read
// back from Kafka, key scope client.
func TestInProcessCheckIsTheFileCheck(t *testing.T) {
	cfg := bench.DefaultConfig()
	cfg.Writers, cfg.Chats, cfg.Ops, cfg.Duration = 5, 4, 2000, 0
	cfg.Readers, cfg.ReuseKey, cfg.SyncRatio = 2, 0.05, 0.2
	cfg.Faults.CrashBeforeAllocate, cfg.Faults.StoreThrottle, cfg.Faults.StoreInternalError, cfg.Faults.TxnCanceledOther = 0.03, 0.03, 0.03, 0.03
	cfg.Contract.KeyScope = history.KeyScopeClient
	res, rep := checkedRun(t, cfg)
	if res.Events == 0 || res.Counts.KeysReused == 0 || rep.Stats.Persists == 0 {
		t.Fatalf("the run exercised too little: %d events, %+v", res.Events, res.Counts)
	}
}

func failing(rep checker.Report) []string {
	var names []string
	for _, inv := range rep.Invariants {
		if inv.Status != checker.Pass {
			names = append(names, fmt.Sprintf("%s=%s (%s)", inv.Name, inv.Status, inv.Detail))
		}
	}
	return names
}

func TestCorrectCorePassesAcrossSeeds(t *testing.T) {
	seeds := 12
	if testing.Short() {
		seeds = 3
	}
	for seed := int64(1); seed <= int64(seeds); seed++ {
		res, rep := smallRun(t, seed, sequencer.Correct, seed%3 == 0)
		if rep.Valid == nil || !*rep.Valid {
			t.Fatalf("seed %d: the correct core was judged %v: %v", seed, rep.Valid, failing(rep))
		}
		if res.Counts.FaultsInjected == 0 || res.Counts.Info == 0 || res.Counts.Dedup == 0 {
			t.Fatalf("seed %d: the run exercised too little: %+v", seed, res.Counts)
		}
	}
}

func TestBrokenVariantsAreCaught(t *testing.T) {
	for _, b := range sequencer.BrokenVariants {
		t.Run(string(b.Variant), func(t *testing.T) {
			caught := false
			for seed := int64(1); seed <= 5 && !caught; seed++ {
				_, rep := smallRun(t, seed, b.Variant, true)
				if inv, ok := rep.Result(b.CaughtBy); ok && inv.Status == checker.Fail {
					caught = true
				}
				if rep.Valid != nil && *rep.Valid {
					t.Errorf("seed %d: %s judged valid", seed, b.Variant)
				}
			}
			if !caught {
				t.Fatalf("%s was never reported as a %s failure", b.Variant, b.CaughtBy)
			}
		})
	}
}

func TestPseudocodeReplayLosesEvents(t *testing.T) {
	cfg := bench.DefaultConfig()
	cfg.Writers, cfg.Chats, cfg.Ops, cfg.Duration = 4, 2, 600, 0
	cfg.Faults = bench.FaultRates{PublishFail: 0.2}
	cfg.RepublishOnReplay = false
	cfg.HistoryPath = filepath.Join(t.TempDir(), "history.jsonl")
	if _, err := bench.Run(context.Background(), cfg, nil); err != nil {
		t.Fatal(err)
	}
	h, err := history.ReadFile(cfg.HistoryPath)
	if err != nil {
		t.Fatal(err)
	}
	rep := checker.Check(h, checker.Options{})
	inv, ok := rep.Result(checker.NameEventCompleteness)
	if !ok {
		t.Fatal("event_completeness was not reported")
	}
	if inv.Status != checker.Fail {
		t.Fatalf("event_completeness %s: ADR-004 §7's replay path should lose events after a failed publish", inv.Status)
	}
}
