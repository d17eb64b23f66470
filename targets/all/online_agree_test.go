package all_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/checker/checkertest"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/targets"
)

// The online and the offline verdict agree (checkertest.OnlineDisagreement's
// rule) on every registered variant of every target that runs in this
// process, the design as written and its alternatives included, each run
// once at small defaults with more duplicates (raced and after an answer)
// than the defaults, so that the idempotency bugs show in a short run. The
// dynamodb targets run memory's core and variants; memory stands for them.
// The shipped scenarios are held to the same rule by
// scenarios.TestShippedScenarios.
func TestOnlineAgreesWithOfflineOnEveryVariant(t *testing.T) {
	flagged := map[string]bool{}
	for _, name := range []string{"memory", "ledger", "postgres"} {
		open := opener(t, name)
		runs := append([]targets.Variant{{}}, targets.Variants(name)...)
		for _, v := range runs {
			cfg := bench.DefaultConfig()
			cfg.Target, cfg.Variant, cfg.Seed = name, sequencer.Variant(v.Name), 1
			cfg.Receivers = v.Receivers
			cfg.Ops, cfg.Duration = 400, 0
			if v.Receivers == 0 {
				// A push gateway's bug needs the default chats to
				// show (its membership buckets collide across them).
				cfg.Writers, cfg.Chats = 4, 3
			}
			cfg.ConcurrentDuplicate, cfg.DuplicateAfterOK = 0.3, 0.2
			if name == "memory" {
				cfg.Faults.StaleRead = 0.3 // the look-up misses, as DynamoDB may
			}
			o := open()
			cfg.Contract = o.Contract
			if o.Topic != "" {
				cfg.Topic = o.Topic
			}
			cfg.HistoryPath = filepath.Join(t.TempDir(), fmt.Sprintf("%s-%s.jsonl", name, v.Name))
			online := checker.NewOnline(nil)
			feed := checker.NewOnlineFeed(cfg.HistoryPath, online)
			cfg.HistoryTap = feed.Tap()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			_, err := bench.RunTarget(ctx, cfg, o.Factory)
			cancel()
			if err != nil {
				feed.Discard()
				t.Fatalf("--target %s --broken %q: run: %v", name, v.Name, err)
			}
			rep, _, err := feed.Check(checker.Options{})
			if err != nil {
				t.Fatalf("--target %s --broken %q: %v", name, v.Name, err)
			}
			vs := online.Violations()
			var names []string
			for _, vi := range vs {
				flagged[vi.Invariant] = true
				names = append(names, vi.Invariant)
			}
			t.Logf("--target %s --broken %q: offline fails %v, online %v", name, v.Name, checkertest.Failing(rep), names)
			if d := checkertest.OnlineDisagreement(rep, vs, cfg.HistoryPath); d != "" {
				t.Errorf("--target %s --broken %q --seed 1 --ops 400 --writers %d --chats %d --receivers %d --concurrent-duplicate 0.3 --duplicate-after-ok 0.2: online and offline disagree: %s", name, v.Name, cfg.Writers, cfg.Chats, cfg.Receivers, d)
			}
		}
	}
	// Each bug caught by an invariant the online check judges was flagged
	// online: the rule above was put to work, not only met by silence.
	for _, name := range []string{"memory", "ledger", "postgres"} {
		for _, v := range targets.Variants(name) {
			if slices.Contains(checker.OnlineInvariants, v.CaughtBy) && !flagged[v.CaughtBy] {
				t.Errorf("--target %s --broken %s: the online check flagged no violation of %s", name, v.Name, v.CaughtBy)
			}
		}
	}
}
