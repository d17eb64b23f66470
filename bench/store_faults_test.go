package bench_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/internal/evidence"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/store"
	"github.com/chatseq/chatseq/target"
)

// storeFaultCodes are the codes the store error faults and the crash
// before step 3 answer with.
var storeFaultCodes = []string{
	store.CodeThrottled, store.CodeInternalError, sequencer.CodeTransactionCanceled, sequencer.CodeCrashBeforeAllocate,
}

func runChecked(t *testing.T, cfg bench.Config) (*bench.Result, checker.Report, *history.History) {
	t.Helper()
	cfg.HistoryPath = filepath.Join(t.TempDir(), "history.jsonl")
	res, err := bench.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	h, err := history.ReadFile(cfg.HistoryPath)
	if err != nil {
		t.Fatalf("the recorded history does not parse: %v", err)
	}
	return res, checker.Check(h, checker.Options{}), h
}

// completions counts, per error code, the fail and info completions.
func completions(h *history.History) (fail, info map[string]int) {
	fail, info = map[string]int{}, map[string]int{}
	for _, e := range h.Events {
		switch e.Kind {
		case history.KindFail:
			fail[e.Error]++
		case history.KindInfo:
			info[e.Error]++
		}
	}
	return fail, info
}

// ADR-004's correct core passes every invariant with store errors on
// (throttled calls, 500s that may have applied, transactions cancelled by
// a conflict) and crashes before step 3, under both strategies, with Kafka
// on and off, across seeds; and the clients saw each as the core decided:
// throttles, cancellations and failed reads fail; a 500 on a write and a
// crash are info.
func TestCorrectCorePassesWithStoreErrorsAcrossSeeds(t *testing.T) {
	seeds := 8
	if testing.Short() {
		seeds = 3
	}
	fails, infos := map[string]int{}, map[string]int{}
	for seed := int64(1); seed <= int64(seeds); seed++ {
		cfg := bench.DefaultConfig()
		cfg.Writers, cfg.Chats, cfg.Ops, cfg.Duration = 6, 3, 1500, 0
		cfg.Seed, cfg.KafkaOff = seed, seed%2 == 0
		if seed%3 == 0 {
			cfg.Strategy = sequencer.Optimistic
		}
		cfg.Faults.CrashBeforeAllocate = 0.05
		cfg.Faults.StoreThrottle, cfg.Faults.StoreInternalError, cfg.Faults.TxnCanceledOther = 0.05, 0.05, 0.05
		cfg.DuplicateAfterOK, cfg.ConcurrentDuplicate, cfg.SyncRatio = 0.1, 0.1, 0.15
		res, rep, h := runChecked(t, cfg)
		if rep.Valid == nil || !*rep.Valid {
			t.Fatalf("seed %d (%s, kafka off %v): the correct core was judged %v: %v", seed, cfg.Strategy, cfg.KafkaOff, rep.Valid, failing(rep))
		}
		f, i := completions(h)
		for _, code := range storeFaultCodes {
			fails[code] += f[code]
			infos[code] += i[code]
		}
		if res.Counts.FaultsInjected == 0 {
			t.Fatalf("seed %d: no fault injected", seed)
		}
	}
	for code, want := range map[string]struct{ fail, info bool }{
		store.CodeThrottled:               {fail: true},
		store.CodeInternalError:           {fail: true, info: true},
		sequencer.CodeTransactionCanceled: {fail: true},
		sequencer.CodeCrashBeforeAllocate: {info: true},
	} {
		if (fails[code] > 0) != want.fail || (infos[code] > 0) != want.info {
			t.Errorf("%s: %d fail and %d info completions; want fail %v, info %v", code, fails[code], infos[code], want.fail, want.info)
		}
	}
	t.Logf("fail %v, info %v", fails, infos)
}

// The same errors on the run's clock: every store call in a window is
// throttled, fails with a 500, or (a transaction) is cancelled; the
// correct core still passes, and each window answered as it should. In a
// 500 window step 1's read fails first, so sends fail (§10's "DynamoDB
// unavailable: all operations fail"); occ retries a cancelled round.
func TestCorrectCorePassesStoreErrorWindows(t *testing.T) {
	for _, strategy := range []sequencer.Strategy{sequencer.TwoPhase, sequencer.Optimistic} {
		cfg := bench.DefaultConfig()
		// Windows of 600 ms: the longer a window, the likelier a machine
		// busy with other jobs runs an operation in it.
		cfg.Writers, cfg.Chats, cfg.Duration, cfg.Rate = 6, 4, 2200*time.Millisecond, 3000
		cfg.Strategy = strategy
		cfg.Timed = []target.TimedFault{
			{Kind: target.StoreThrottle, At: 100 * time.Millisecond, For: 600 * time.Millisecond},
			{Kind: target.StoreInternalError, At: 800 * time.Millisecond, For: 600 * time.Millisecond},
			{Kind: target.TxnCanceledOther, At: 1500 * time.Millisecond, For: 600 * time.Millisecond},
		}
		// A machine busy with other jobs can deschedule the writers for a
		// whole window: a run in which a window struck nothing says
		// nothing about how it answers, and runs again.
		evidence.Rerun(t, evidence.Default, func(int) string {
			_, rep, h := runChecked(t, cfg)
			if rep.Valid == nil || !*rep.Valid {
				t.Fatalf("%s: the correct core was judged %v under store error windows: %v", strategy, rep.Valid, failing(rep))
			}
			f, i := completions(h)
			if i[store.CodeThrottled] != 0 || i[sequencer.CodeTransactionCanceled] != 0 {
				t.Errorf("%s: a throttle or a cancellation answered info: %v", strategy, i)
			}
			return storeWindowsMissed(strategy, f, i)
		})
	}
}

// storeWindowsMissed names the windows of TestCorrectCorePassesStoreErrorWindows
// that failed no operation: in a 500 window step 1's read fails first, so
// sends fail; only two-phase allocation fails a cancelled transaction (occ
// retries its round).
func storeWindowsMissed(strategy sequencer.Strategy, fail, info map[string]int) string {
	var missed []string
	if fail[store.CodeThrottled] == 0 {
		missed = append(missed, "the throttle window")
	}
	if fail[store.CodeInternalError] == 0 {
		missed = append(missed, "the 500 window")
	}
	if strategy == sequencer.TwoPhase && fail[sequencer.CodeTransactionCanceled] == 0 {
		missed = append(missed, "the cancellation window")
	}
	if len(missed) == 0 {
		return ""
	}
	return fmt.Sprintf("%s: %s failed no operation (fail %v, info %v)", strategy, strings.Join(missed, " and "), fail, info)
}
