package httptarget_test

import (
	"context"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/httpapi/apitest"
	"github.com/chatseq/chatseq/internal/serve"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/targets"
	"github.com/chatseq/chatseq/targets/httptarget"
)

// startServer starts chatseq serve's server in process: target memory, with
// variant, publishing to an embedded Kafka when kafka is set.
func startServer(t *testing.T, variant sequencer.Variant, kafka bool) *serve.Serving {
	t.Helper()
	o := serve.Options{
		Target: "memory", Variant: variant, Strategy: sequencer.TwoPhase, RepublishOnReplay: true,
		Kafka: serve.KafkaOff, Partitions: 8, Listen: "127.0.0.1:0", Seed: 1, TestHooks: true,
	}
	if kafka {
		o.Kafka = serve.KafkaEmbedded
	}
	s, err := serve.Start(context.Background(), o)
	if err != nil {
		t.Fatalf("serving: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// runThroughHTTP runs cfg against the served target through the http
// target, every request and answer checked against docs/openapi.yaml,
// and checks the history.
func runThroughHTTP(t *testing.T, s *serve.Serving, cfg bench.Config) checker.Report {
	t.Helper()
	return runThroughHTTPStating(t, s, cfg, nil)
}

// runThroughHTTPStating is runThroughHTTP with the contract the run
// states changed by state (nil: the http target's as opened), as a
// mapping's contract or --key-scope would change it.
func runThroughHTTPStating(t *testing.T, s *serve.Serving, cfg bench.Config, state func(*history.Contract)) checker.Report {
	t.Helper()
	opened, err := targets.Open(context.Background(), httptarget.Name, targets.Options{URL: "http://" + s.Addr})
	if err != nil {
		t.Fatal(err)
	}
	base, _ := url.Parse("http://" + s.Addr)
	validate := apitest.NewTransport(t, nil)
	cfg.Target, cfg.Contract = httptarget.Name, opened.Contract
	if state != nil {
		state(&cfg.Contract)
	}
	cfg.Brokers, cfg.Topic = s.Brokers, s.Topic
	if opened.NoTopicToRead(cfg.Brokers) {
		cfg.KafkaOff = true
	}
	if cfg.HistoryPath == "" {
		cfg.HistoryPath = filepath.Join(t.TempDir(), "history.jsonl")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := bench.RunTarget(ctx, cfg, httptarget.Factory(base, httptarget.DefaultAPI(), validate)); err != nil {
		t.Fatalf("run: %v", err)
	}
	validate.Check(t)
	rep, _, err := checker.CheckFile(cfg.HistoryPath, checker.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func shortRun(seed int64, ops int) bench.Config {
	cfg := bench.DefaultConfig()
	cfg.Seed, cfg.Ops, cfg.Duration = seed, ops, 0
	cfg.HistoryPath = "" // runThroughHTTP's, in the test's own directory, not the package's
	return cfg
}

// The correct core behind chatseq serve passes at bench's defaults
// (faults sent through the test hooks), judged from what HTTP showed: the
// invariants that need the server's inside are n/a, none fails.
func TestCorrectServerPassesThroughHTTP(t *testing.T) {
	s := startServer(t, sequencer.Correct, true)
	rep := runThroughHTTP(t, s, shortRun(1, 1500))
	judged := 0
	for _, r := range rep.Invariants {
		switch r.Status {
		case checker.Fail, checker.Unknown:
			t.Errorf("%s is %s: %s", r.Name, r.Status, r.Detail)
		case checker.Pass:
			judged++
		}
	}
	for _, name := range []string{"ack_implies_persistence", "idempotency_guarantee", "sequence_uniqueness", "linearizability", "event_completeness", "sync_completeness"} {
		if r, ok := rep.Result(name); !ok || r.Status != checker.Pass {
			t.Errorf("%s was not judged a pass through HTTP: %+v", name, r)
		}
	}
	if judged == 0 {
		t.Fatal("no invariant was judged")
	}
}

// Each broken variant served by chatseq serve is caught through HTTP
// alone, by the invariant that names it.
func TestEveryBrokenVariantServedIsCaughtThroughHTTP(t *testing.T) {
	for _, v := range sequencer.BrokenVariants {
		t.Run(string(v.Variant), func(t *testing.T) {
			s := startServer(t, v.Variant, false)
			rep := runThroughHTTP(t, s, shortRun(1, 1500))
			r, ok := rep.Result(v.CaughtBy)
			if !ok || r.Status != checker.Fail {
				t.Errorf("%s served over HTTP: %s is %+v, want fail", v.Variant, v.CaughtBy, r)
			}
		})
	}
}

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }
