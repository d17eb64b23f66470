// The race detector slows the served process (this test binary, run by
// --serve) so much that a run between kills holds too few acknowledged
// messages to judge: test.sh runs this test without it.

//go:build !race

package httptarget_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/fixtures/dynamodblocal"
	pgfixture "github.com/chatseq/chatseq/fixtures/postgres"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/internal/evidence"
	"github.com/chatseq/chatseq/internal/serve"
	"github.com/chatseq/chatseq/scenarios"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/store/dynamostore"
	"github.com/chatseq/chatseq/storeopen"
	"github.com/chatseq/chatseq/target"
	"github.com/chatseq/chatseq/targets"
	"github.com/chatseq/chatseq/targets/httptarget"
	"github.com/chatseq/chatseq/targets/postgres"
)

// freeAddr is a loopback address nothing listens on now.
func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// killed is what a killed run did and how its history was judged.
type killed struct {
	rep checker.Report
	res *bench.Result
	// lostByDesign counts the sends the server acknowledged (new, not
	// replayed) that a fault plan made it lose: a crash in persist whose
	// commit did not land. Only a variant that answers before it commits
	// acknowledges those; chatseq serve as designed dies first.
	lostByDesign int64
}

// killedRun serves o's target (over a store that outlives the server
// process) from a process the run kills and restarts every 500 ms, and
// checks the history. seed is the run's (its fault plans follow it).
func killedRun(t *testing.T, o serve.Options, faults bench.FaultRates, seed int64) killed {
	t.Helper()
	addr := freeAddr(t)
	o.Strategy, o.RepublishOnReplay, o.Kafka, o.Listen, o.Seed = sequencer.TwoPhase, true, serve.KafkaOff, addr, 1
	spec, _ := json.Marshal(o)
	command := fmt.Sprintf("AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local %s=%s exec %s", serveEnv, scenarios.ShellQuote(string(spec)), scenarios.ShellQuote(os.Args[0]))
	// Every restart starts this test binary again and connects it to the
	// store: on a machine busy with other jobs five of them took more
	// than a fixed two minutes. The run may take the test's own time.
	ctx, cancel := context.Background(), context.CancelFunc(func() {})
	if deadline, ok := t.Deadline(); ok {
		ctx, cancel = context.WithDeadline(ctx, deadline.Add(-time.Minute))
	}
	defer cancel()
	// The run states the served design's key scope, as serve prints it.
	keyScope := history.KeyScopeChat
	if o.Target == postgres.Name {
		keyScope = postgres.Contract.KeyScope
	}
	opened, err := targets.Open(ctx, httptarget.Name, targets.Options{URL: "http://" + addr, Serve: command, Contract: history.Contract{KeyScope: keyScope}})
	if err != nil {
		t.Fatal(err)
	}
	defer opened.Close()
	cfg := bench.DefaultConfig()
	cfg.Faults, cfg.Seed = faults, seed
	cfg.Writers, cfg.Chats, cfg.Duration, cfg.KafkaOff = 4, 8, 3*time.Second, true
	cfg.Target, cfg.Contract, cfg.ChatPrefix = httptarget.Name, opened.Contract, fmt.Sprintf("kill%d-", time.Now().UnixNano())
	for at := 500 * time.Millisecond; at < cfg.Duration; at += 500 * time.Millisecond {
		cfg.Timed = append(cfg.Timed, target.TimedFault{Kind: target.KillServer, At: at})
	}
	cfg.HistoryPath = filepath.Join(t.TempDir(), "history.jsonl")
	var lost atomic.Int64
	factory := func(ctx context.Context, env target.Env) (target.Target, error) {
		tgt, err := opened.Factory(ctx, env)
		if err != nil {
			return nil, err
		}
		return lossCounter{Target: tgt, lost: &lost}, nil
	}
	res, err := bench.RunTarget(ctx, cfg, factory)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	rep, _, err := checker.CheckFile(cfg.HistoryPath, checker.Options{})
	if err != nil {
		t.Fatal(err)
	}
	logKills(t, res, lost.Load())
	return killed{rep: rep, res: res, lostByDesign: lost.Load()}
}

// lossCounter counts a run's lostByDesign sends.
type lossCounter struct {
	target.Target
	lost *atomic.Int64
}

func (c lossCounter) Persist(ctx context.Context, req sequencer.Request, tr sequencer.Tracer) (sequencer.Outcome, error) {
	out, err := c.Target.Persist(ctx, req, tr)
	if err == nil && !out.Result.Dedup && req.Faults.CrashInPersist && !req.Faults.CrashInPersistCommitted {
		c.lost.Add(1)
	}
	return out, err
}

// KillServer passes the run's kills on: the wrapped target is --serve's.
func (c lossCounter) KillServer(ctx context.Context) error {
	return c.Target.(target.ServerKiller).KillServer(ctx)
}

// fewKills is what a killed run lacked to judge a server by its kills:
// the five the schedule asks for ("" when it had them). A run on a busy
// machine may end before a restart lets the next kill come.
func fewKills(k killed) string {
	if k.res.ServerKills < 5 {
		return fmt.Sprintf("the server was killed %d times, want at least 5", k.res.ServerKills)
	}
	return ""
}

// killedRuns runs killedRun until a run has the evidence missing names
// none of (internal/evidence), each with a seed of its own, and returns it.
func killedRuns(t *testing.T, o serve.Options, faults bench.FaultRates, missing func(killed) string) killed {
	t.Helper()
	var k killed
	evidence.Rerun(t, evidence.Default, func(n int) string {
		k = killedRun(t, o, faults, int64(n))
		return missing(k)
	})
	return k
}

// Kills of chatseq serve over a durable store lose nothing it
// acknowledged; a variant that acknowledges before it commits loses what
// a kill interrupts, and ack_implies_persistence shows it.
func TestKilledServerOverDynamoDBLocal(t *testing.T) {
	local := dynamodblocal.StartForTest(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "local")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "local")
	client, err := dynamostore.NewClient(context.Background(), dynamostore.ClientOptions{Endpoint: local.Endpoint(), Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := dynamostore.CreateTables(context.Background(), client, dynamostore.Prefixed("chatseq_")); err != nil {
		t.Fatal(err)
	}
	// DynamoDB Local's first requests take seconds (the JVM warms up):
	// before the kills, not between them.
	warm := bench.DefaultConfig()
	warm.Ops, warm.Duration, warm.KafkaOff, warm.ChatPrefix, warm.Faults = 100, 0, true, "warm-", bench.FaultRates{}
	warm.HistoryPath = filepath.Join(t.TempDir(), "warm.jsonl")
	if _, err := bench.Run(context.Background(), warm, dynamostore.New(client, dynamostore.Prefixed("chatseq_"))); err != nil {
		t.Fatal(err)
	}
	served := func(variant sequencer.Variant) serve.Options {
		return serve.Options{
			Target: storeopen.DynamoDB, Variant: variant,
			Open: targets.Options{Store: storeopen.Options{Kind: storeopen.DynamoDB, Endpoint: local.Endpoint(), Region: "us-east-1", TablePrefix: "chatseq_", MaxAttempts: 1}},
		}
	}
	t.Run("correct", func(t *testing.T) {
		// The kills are the only faults.
		requireNothingLost(t, killedRuns(t, served(sequencer.Correct), bench.FaultRates{}, fewKills))
	})
	t.Run(string(sequencer.AckBeforePersist), func(t *testing.T) {
		// Besides the kills, crashes inside the commit (sent through the
		// test hook), so that the variant loses a message on every run,
		// not only when a kill lands between an ACK and its commit.
		killedRuns(t, served(sequencer.AckBeforePersist), bench.FaultRates{CrashInPersist: 0.5}, requireAcksLost(t))
	})
}

// Kills of chatseq serve --target postgres over a cluster (and a kept
// schema) that outlive it lose nothing it acknowledged; its variant that
// answers before COMMIT loses what a death between the two interrupts,
// and ack_implies_persistence shows it.
func TestKilledServerOverPostgres(t *testing.T) {
	cluster := pgfixture.StartForTest(t)
	served := func(variant postgres.Variant) serve.Options {
		return serve.Options{
			Target: postgres.Name, Variant: sequencer.Variant(variant), Connections: 16,
			Open: targets.Options{DSN: cluster.DSN(), Schema: fmt.Sprintf("chatseq_nemesis_%d", time.Now().UnixNano())},
		}
	}
	t.Run("correct", func(t *testing.T) {
		requireNothingLost(t, killedRuns(t, served(postgres.AsDesigned), bench.FaultRates{}, fewKills))
	})
	t.Run(string(postgres.AckBeforeCommit), func(t *testing.T) {
		// As over DynamoDB Local: crashes around COMMIT (through the test
		// hook) besides the kills, so that the variant loses a message on
		// every run, not only when a kill lands between an answer and its
		// COMMIT.
		killedRuns(t, served(postgres.AckBeforeCommit), bench.FaultRates{CrashInPersist: 0.5}, requireAcksLost(t))
	})
}

// requireNothingLost: a correct server killed during the run passes, and
// everything it acknowledged is in its final state.
func requireNothingLost(t *testing.T, k killed) {
	t.Helper()
	for _, r := range k.rep.Invariants {
		if r.Status == checker.Fail || r.Status == checker.Unknown {
			t.Errorf("%s is %s: %s", r.Name, r.Status, r.Detail)
		}
	}
	if r, _ := k.rep.Result("ack_implies_persistence"); r.Status != checker.Pass {
		t.Errorf("ack_implies_persistence is %s: %s", r.Status, r.Detail)
	}
	if k.lostByDesign != 0 {
		t.Errorf("the server as designed acknowledged %d sends it was made to crash before committing", k.lostByDesign)
	}
}

// requireAcksLost: a variant that answers before it commits loses what it
// acknowledged, and ack_implies_persistence shows it. A run in which it
// lost nothing (no kill between an answer and its commit, no acknowledged
// send made to crash before committing) proves nothing and runs again; one
// that lost an acknowledgement the check passed fails.
func requireAcksLost(t *testing.T) func(killed) string {
	return func(k killed) string {
		t.Helper()
		r, _ := k.rep.Result("ack_implies_persistence")
		switch {
		case r.Status == checker.Fail:
			return fewKills(k)
		case k.lostByDesign > 0:
			t.Errorf("ack_implies_persistence is %s after %d acknowledgements lost by design, want fail: %s", r.Status, k.lostByDesign, r.Detail)
			return ""
		}
		return fmt.Sprintf("no acknowledged send was lost (ack_implies_persistence %s: %s)", r.Status, r.Detail)
	}
}

func logKills(t *testing.T, res *bench.Result, lostByDesign int64) {
	t.Logf("%d kills, %d persists acknowledged (%d of them lost by design), %d unknown, errors %v, elapsed %s",
		res.ServerKills, res.Counts.PersistOK, lostByDesign, res.Counts.Info, res.Counts.ErrorCodes, res.Elapsed)
}
