package bench_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/store"
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
		// Windows of 300 ms: at 150 ms, a machine busy with other jobs
		// could leave one window without a single operation to fail.
		cfg.Writers, cfg.Chats, cfg.Duration, cfg.Rate = 6, 4, 1200*time.Millisecond, 3000
		cfg.Strategy = strategy
		cfg.Timed = []bench.TimedFault{
			{Kind: bench.StoreThrottle, At: 100 * time.Millisecond, For: 300 * time.Millisecond},
			{Kind: bench.StoreInternalError, At: 450 * time.Millisecond, For: 300 * time.Millisecond},
			{Kind: bench.TxnCanceledOther, At: 800 * time.Millisecond, For: 300 * time.Millisecond},
		}
		_, rep, h := runChecked(t, cfg)
		if rep.Valid == nil || !*rep.Valid {
			t.Fatalf("%s: the correct core was judged %v under store error windows: %v", strategy, rep.Valid, failing(rep))
		}
		f, i := completions(h)
		if f[store.CodeThrottled] == 0 || f[store.CodeInternalError] == 0 {
			t.Errorf("%s: the throttle and 500 windows answered fail %v, info %v", strategy, f, i)
		}
		if strategy == sequencer.TwoPhase && f[sequencer.CodeTransactionCanceled] == 0 {
			t.Errorf("%s: the cancellation window failed no transaction: fail %v", strategy, f)
		}
		if i[store.CodeThrottled] != 0 || i[sequencer.CodeTransactionCanceled] != 0 {
			t.Errorf("%s: a throttle or a cancellation answered info: %v", strategy, i)
		}
	}
}
