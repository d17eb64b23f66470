package postgres

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker/checkertest"
	pgfixture "github.com/chatseq/chatseq/fixtures/postgres"
	"github.com/chatseq/chatseq/history"
)

// The database really crashes mid-run (immediate shutdown: connections
// break, open transactions are lost) and comes back. Sends fail cleanly
// or, when a COMMIT's answer is lost, end unknown; the relay backs off and
// catches up; the history still checks. This is the design's "Database
// Down" row with real driver errors rather than the scheduled window.
func TestRealDatabaseCrashMidRun(t *testing.T) {
	c := pgfixture.StartForTest(t)
	cfg := benchConfig(t, 8, 8, 2*time.Second)
	cfg.Contract.EventOrder = history.EventOrderNone // ordering_test.go judges order
	// The crash waits for the writers to have sent something, not for a
	// fixed time: on a loaded machine setting the run up can take longer
	// than the run, and a crash before it would touch no send.
	sending := make(chan struct{})
	var once sync.Once
	cfg.Progress = func(p bench.Progress) {
		if p.Operations > 0 && !p.Done {
			once.Do(func() { close(sending) })
		}
	}
	crashed := make(chan error, 1)
	go func() {
		<-sending
		if err := c.Halt(); err != nil {
			crashed <- err
			return
		}
		time.Sleep(400 * time.Millisecond)
		crashed <- c.Resume(context.Background())
	}()
	res, rep, h := runAndCheck(t, cfg, Config{DSN: c.DSN(), RelayCrash: 0.02})
	once.Do(func() { close(sending) }) // a run that sent nothing still ends the crash goroutine
	if err := <-crashed; err != nil {
		t.Fatalf("crashing the database: %v", err)
	}
	checkertest.RequireValid(t, rep)
	failed := 0
	for _, e := range h.Events {
		if e.Kind == history.KindFail || e.Kind == history.KindInfo {
			failed++
		}
	}
	if res.Counts.ErrorCodes[CodeDBUnavailable]+res.Counts.ErrorCodes["store_error"]+res.Counts.ErrorCodes[CodeCommitUnacknowledged] == 0 {
		t.Fatalf("the crash touched no send (%d failed or unknown, codes %v)", failed, res.Counts.ErrorCodes)
	}
	t.Logf("error codes across the crash: %v", res.Counts.ErrorCodes)
}
