package scenarios

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/sequencer"
)

// ServeTestEnv, set, makes this package's test binary run chatseq with
// its arguments (one a line): main_test.go's TestMain.
const ServeTestEnv = "CHATSEQ_SCENARIOS_TEST_CHATSEQ"

// serveThisBinary is Options.ServeCommand for this package's tests: the
// test binary, as chatseq serve.
func serveThisBinary(args []string) string {
	return ServeTestEnv + "=" + shellQuote(strings.Join(append([]string{"serve"}, args...), "\n")) + " exec " + shellQuote(os.Args[0]) + " -test.run='^$'"
}

// A served scenario's run drives chatseq serve over HTTP: the design, its
// variant and strategy go to serve's flags, with a fixed port (a
// restarted server listens where the run sends) and the Kafka the runner
// keeps; without a serve command it is an error, not a run in process.
func TestAServedScenarioServesItsDesign(t *testing.T) {
	sc, err := Decode([]byte("duration: 1s\nserve: true\nstrategy: occ\nbroken: retry-reallocates\nexpect: pass\n"), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := sc.Config()
	if _, err := startServed(context.Background(), sc, &cfg, Options{}); err == nil || !strings.Contains(err.Error(), "serve: true needs chatseq's own binary") {
		t.Fatalf("no serve command: %v, want it named", err)
	}
	var got []string
	cfg = sc.Config()
	s, err := startServed(context.Background(), sc, &cfg, Options{ServeCommand: func(args []string) string {
		got = args
		return "chatseq serve"
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	args := strings.Join(got, " ")
	for _, want := range []string{"--target memory", "--broken retry-reallocates", "--strategy occ", "--listen 127.0.0.1:", "--brokers " + strings.Join(s.brokers, ","), "--topic " + sequencer.Topic} {
		if !strings.Contains(args, want) {
			t.Errorf("serve's arguments %q lack %q", args, want)
		}
	}
	if strings.Contains(args, ":0 ") || len(s.brokers) == 0 {
		t.Errorf("serve's arguments %q: want a fixed port and the runner's Kafka", args)
	}
	if cfg.Target != "http" || cfg.Variant != "" || cfg.Strategy != sequencer.TwoPhase || s.reach.Serve != "chatseq serve" {
		t.Errorf("the run: target %s variant %q strategy %s serve %q, want http driving the served design", cfg.Target, cfg.Variant, cfg.Strategy, s.reach.Serve)
	}
}
