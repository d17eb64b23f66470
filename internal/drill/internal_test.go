package drill

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/store/memstore"
)

func testConfig(t *testing.T) Config {
	cfg := DefaultConfig()
	cfg.Writers, cfg.Warmup, cfg.After = 4, 60, 60
	cfg.HistoryPath = filepath.Join(t.TempDir(), "drill.jsonl")
	return cfg
}

func failing(res *Result) map[string]bool {
	out := map[string]bool{}
	for _, e := range res.Expectations {
		if !e.OK {
			out[e.Name] = true
		}
	}
	return out
}

// Skipping the runbook's "no active writes" must fail the counter-recovery
// drill: the straggler commits after the recovery and its sequence is
// handed out again.
func TestRecoveryWithoutQuiescingFailsTheDrill(t *testing.T) {
	res, err := execute(context.Background(), memstore.New(), testConfig(t),
		procedure{name: "counter-recovery", releaseAfterRecovery: true, recover: Runbook})
	if err != nil {
		t.Fatal(err)
	}
	res.judgeRecovery()
	if res.Passed {
		t.Fatal("a recovery racing an in-flight write passed the drill")
	}
	f := failing(res)
	for _, name := range []string{"in-flight write waited for", "no sequence acknowledged twice", "every invariant holds"} {
		if !f[name] {
			t.Errorf("%q did not fail; failing: %v", name, f)
		}
	}
}

// The unsafe drill fails when the damage goes unnoticed by the checker...
func TestUnsafeDrillFailsWhenTheCheckerMissesTheDamage(t *testing.T) {
	res, err := execute(context.Background(), memstore.New(), testConfig(t),
		procedure{name: "unsafe-recovery/below-max", quiesce: true, recover: BelowMax(1)})
	if err != nil {
		t.Fatal(err)
	}
	// A checker blind to the damage: every verdict turned to pass.
	for i := range res.Report.Invariants {
		res.Report.Invariants[i].Status, res.Report.Invariants[i].Lines = checker.Pass, nil
	}
	res.judgeDamage()
	if res.Passed {
		t.Fatal("the unsafe drill passed although the checker reported nothing")
	}
	f := failing(res)
	if f["damage done"] || !f["sequence_uniqueness catches it"] || !f["ack_implies_persistence catches it"] {
		t.Errorf("failing expectations %v, want exactly the two 'catches it'", f)
	}
}

// ...and when there was no damage to catch.
func TestUnsafeDrillFailsWithoutDamage(t *testing.T) {
	res, err := execute(context.Background(), memstore.New(), testConfig(t),
		procedure{name: "unsafe-recovery/none", quiesce: true, recover: Runbook})
	if err != nil {
		t.Fatal(err)
	}
	res.judgeDamage()
	if res.Passed || !failing(res)["damage done"] {
		t.Fatalf("an unsafe drill without damage passed: %+v", res.Expectations)
	}
}

func TestGatePauseWaitsForOperationsInFlight(t *testing.T) {
	g := newGate()
	stop := make(chan struct{})
	if !g.enter(stop) {
		t.Fatal("enter refused on an open gate")
	}
	paused := make(chan error, 1)
	go func() { paused <- g.pause(context.Background()) }()
	select {
	case <-paused:
		t.Fatal("pause returned with an operation in flight")
	case <-time.After(20 * time.Millisecond):
	}
	var entered atomic.Bool
	go func() {
		if g.enter(stop) {
			entered.Store(true)
			g.exit()
		}
	}()
	g.exit()
	if err := <-paused; err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	if entered.Load() {
		t.Fatal("an operation entered a paused gate")
	}
	g.resume()
	deadline := time.Now().Add(5 * time.Second)
	for !entered.Load() {
		if time.Now().After(deadline) {
			t.Fatal("resume did not let the waiting operation in")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestGateStopReleasesWaitersAndPauseHonoursContext(t *testing.T) {
	g := newGate()
	stop := make(chan struct{})
	g.enterAlways()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := g.pause(ctx); err == nil {
		t.Fatal("pause returned nil although an operation never finished")
	}
	got := make(chan bool, 1)
	go func() { got <- g.enter(stop) }()
	time.Sleep(10 * time.Millisecond)
	close(stop)
	g.wake()
	if <-got {
		t.Fatal("enter succeeded after stop on a paused gate")
	}
}
