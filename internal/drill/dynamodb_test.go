package drill_test

import (
	"context"
	"testing"
	"time"

	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/fixtures/dynamodblocal"
	"github.com/chatseq/chatseq/internal/drill"
	"github.com/chatseq/chatseq/store/dynamostore"
)

// Both drills against DynamoDB Local, one server for all of them (a JVM
// start costs seconds), each drill on a chat of its own. Kept to a few
// hundred operations: DynamoDB Local does tens to hundreds of persists/s.
func TestDrillsOnDynamoDBLocal(t *testing.T) {
	srv := dynamodblocal.StartForTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	client, err := dynamostore.NewClient(ctx, dynamostore.ClientOptions{Endpoint: srv.Endpoint()})
	if err != nil {
		t.Fatal(err)
	}
	tables := dynamostore.Prefixed("drilltest_")
	if err := dynamostore.CreateTables(ctx, client, tables); err != nil {
		t.Fatal(err)
	}
	st := dynamostore.New(client, tables)
	config := func(t *testing.T, chat string) drill.Config {
		cfg := smallConfig(t)
		cfg.Writers, cfg.Warmup, cfg.After = 3, 30, 30
		cfg.Chat, cfg.Target = chat, "dynamodb-local"
		return cfg
	}

	t.Run("counter-recovery", func(t *testing.T) {
		cfg := config(t, "drill-recovery")
		cfg.Orphans = 1
		res, err := drill.CounterRecovery(ctx, st, cfg)
		if err != nil {
			t.Fatal(err)
		}
		checkRunbookPassed(t, res)
		if len(res.Reissued) != 1 || res.Reissued[0] != res.MaxPersisted+1 {
			t.Errorf("re-issued %v, want the orphan %d", res.Reissued, res.MaxPersisted+1)
		}
	})
	t.Run("counter-recovery-below-max-fails", func(t *testing.T) {
		cfg := config(t, "drill-broken")
		cfg.Recover = drill.BelowMax(1)
		res, err := drill.CounterRecovery(ctx, st, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.Passed {
			t.Fatal("a recovery to max-1 passed the drill on DynamoDB Local")
		}
		if e := expectation(t, res, "first new sequence is max+1"); e.OK {
			t.Errorf("first new sequence passed: %s", e.Detail)
		}
	})
	for _, c := range drill.Cases {
		t.Run("unsafe-"+string(c), func(t *testing.T) {
			res, err := drill.UnsafeRecovery(ctx, st, config(t, "drill-unsafe-"+string(c)), c)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Passed {
				t.Fatalf("unsafe drill did not pass: %v", failedExpectations(res))
			}
			if inv := invariant(t, res, checker.NameSequenceUniqueness); inv.Status != checker.Fail {
				t.Errorf("sequence_uniqueness %s, want fail", inv.Status)
			}
		})
	}
}
