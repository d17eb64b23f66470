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
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/fixtures/dynamodblocal"
	pgfixture "github.com/chatseq/chatseq/fixtures/postgres"
	"github.com/chatseq/chatseq/httpapi"
	"github.com/chatseq/chatseq/scenarios"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/store/dynamostore"
	"github.com/chatseq/chatseq/storeopen"
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

// killedRun serves o's target (over a store that outlives the server
// process) from a process the run kills and restarts every 500 ms, and
// checks the history.
func killedRun(t *testing.T, o httpapi.ServeOptions, faults bench.FaultRates) (checker.Report, *bench.Result) {
	t.Helper()
	addr := freeAddr(t)
	o.Strategy, o.RepublishOnReplay, o.Kafka, o.Listen, o.Seed = sequencer.TwoPhase, true, httpapi.KafkaOff, addr, 1
	spec, _ := json.Marshal(o)
	command := fmt.Sprintf("AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local %s=%s exec %s", serveEnv, scenarios.ShellQuote(string(spec)), scenarios.ShellQuote(os.Args[0]))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	opened, err := targets.Open(ctx, httptarget.Name, targets.Options{URL: "http://" + addr, Serve: command})
	if err != nil {
		t.Fatal(err)
	}
	defer opened.Close()
	cfg := bench.DefaultConfig()
	cfg.Faults = faults
	cfg.Writers, cfg.Chats, cfg.Duration, cfg.KafkaOff = 4, 8, 3*time.Second, true
	cfg.Target, cfg.Contract, cfg.ChatPrefix = httptarget.Name, opened.Contract, fmt.Sprintf("kill%d-", time.Now().UnixNano())
	for at := 500 * time.Millisecond; at < cfg.Duration; at += 500 * time.Millisecond {
		cfg.Timed = append(cfg.Timed, bench.TimedFault{Kind: bench.KillServer, At: at})
	}
	cfg.HistoryPath = filepath.Join(t.TempDir(), "history.jsonl")
	res, err := bench.RunTarget(ctx, cfg, opened.Factory)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if res.ServerKills < 5 {
		t.Errorf("the server was killed %d times, want at least 5", res.ServerKills)
	}
	rep, _, err := checker.CheckFile(cfg.HistoryPath, checker.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep, res
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
	served := func(variant sequencer.Variant) httpapi.ServeOptions {
		return httpapi.ServeOptions{
			Target: storeopen.DynamoDB, Variant: variant,
			Open: targets.Options{Store: storeopen.Options{Kind: storeopen.DynamoDB, Endpoint: local.Endpoint(), Region: "us-east-1", TablePrefix: "chatseq_", MaxAttempts: 1}},
		}
	}
	t.Run("correct", func(t *testing.T) {
		// The kills are the only faults.
		rep, res := killedRun(t, served(sequencer.Correct), bench.FaultRates{})
		requireNothingLost(t, rep, res)
	})
	t.Run(string(sequencer.AckBeforePersist), func(t *testing.T) {
		// Besides the kills, crashes inside the commit (sent through the
		// test hook), so that the variant loses a message on every run,
		// not only when a kill lands between an ACK and its commit.
		rep, res := killedRun(t, served(sequencer.AckBeforePersist), bench.FaultRates{CrashInPersist: 0.5})
		requireAcksLost(t, rep, res)
	})
}

// Kills of chatseq serve --target postgres over a cluster (and a kept
// schema) that outlive it lose nothing it acknowledged; its variant that
// answers before COMMIT loses what a death between the two interrupts,
// and ack_implies_persistence shows it.
func TestKilledServerOverPostgres(t *testing.T) {
	cluster, err := pgfixture.Start(context.Background())
	if err != nil {
		t.Fatalf("starting PostgreSQL: %v", err)
	}
	t.Cleanup(func() { cluster.Stop() })
	served := func(variant postgres.Variant) httpapi.ServeOptions {
		return httpapi.ServeOptions{
			Target: postgres.Name, Variant: sequencer.Variant(variant), Connections: 16,
			Open: targets.Options{DSN: cluster.DSN(), Schema: fmt.Sprintf("chatseq_nemesis_%d", time.Now().UnixNano())},
		}
	}
	t.Run("correct", func(t *testing.T) {
		rep, res := killedRun(t, served(postgres.AsDesigned), bench.FaultRates{})
		requireNothingLost(t, rep, res)
	})
	t.Run(string(postgres.AckBeforeCommit), func(t *testing.T) {
		// As over DynamoDB Local: crashes around COMMIT (through the test
		// hook) besides the kills, so that the variant loses a message on
		// every run, not only when a kill lands between an answer and its
		// COMMIT.
		rep, res := killedRun(t, served(postgres.AckBeforeCommit), bench.FaultRates{CrashInPersist: 0.5})
		requireAcksLost(t, rep, res)
	})
}

// requireNothingLost: a correct server killed during the run passes, and
// everything it acknowledged is in its final state.
func requireNothingLost(t *testing.T, rep checker.Report, res *bench.Result) {
	t.Helper()
	for _, r := range rep.Invariants {
		if r.Status == checker.Fail || r.Status == checker.Unknown {
			t.Errorf("%s is %s: %s", r.Name, r.Status, r.Detail)
		}
	}
	if r, _ := rep.Result("ack_implies_persistence"); r.Status != checker.Pass {
		t.Errorf("ack_implies_persistence is %s: %s", r.Status, r.Detail)
	}
	logKills(t, res)
}

// requireAcksLost: a variant that answers before it commits loses what it
// acknowledged, and ack_implies_persistence shows it.
func requireAcksLost(t *testing.T, rep checker.Report, res *bench.Result) {
	t.Helper()
	logKills(t, res)
	if r, _ := rep.Result("ack_implies_persistence"); r.Status != checker.Fail {
		t.Errorf("ack_implies_persistence is %s, want fail: %s", r.Status, r.Detail)
	}
}

func logKills(t *testing.T, res *bench.Result) {
	t.Logf("%d kills, %d persists acknowledged, %d unknown, errors %v, elapsed %s", res.ServerKills, res.Counts.PersistOK, res.Counts.Info, res.Counts.ErrorCodes, res.Elapsed)
}
