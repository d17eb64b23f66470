package scenarios

import (
	"strconv"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/metrics"
	"github.com/chatseq/chatseq/storeopen"
	"github.com/chatseq/chatseq/targets"
)

// Options say how scenarios run.
type Options struct {
	// OutDir receives each scenario's results directory, <name>/ (its
	// history, results.json, latency.hlog, report.html); required.
	OutDir string
	// Store reaches DynamoDB for scenarios whose target needs it; its
	// Kind is ignored (the scenario or Overrides.Target names the store).
	Store storeopen.Options
	DSN   string // for PostgreSQL targets
	// Open reaches a service over HTTP (target http: URL, API, Serve,
	// NemesisCmd); Brokers, when set, is the Kafka it publishes to, read
	// back after each run.
	Open    targets.Options
	Brokers []string
	// ServeCommand is the shell command that runs chatseq serve with
	// args, for the scenarios that serve their design in a process of
	// their own (serve: true); chatseq run gives its own binary.
	ServeCommand func(args []string) string
	// CheckOptions are passed to every checker.Check (the linearizability
	// budgets; the contract comes from each history's header).
	CheckOptions checker.Options
	Overrides    Overrides
	// Targets, if set, keeps targets open from one scenario to the next;
	// nil opens a target per run.
	Targets *TargetCache
	// Metrics, if set, exports every run's figures live (--metrics-addr).
	Metrics *metrics.Exporter
	// Live, if set, is asked for each scenario's run (not a shrink's)
	// what to tell while its writers go: progress gets bench's progress
	// reports, violation each invariant's first violation the moment the
	// online check finds it (from the goroutine feeding it lines). Either
	// may be nil.
	Live func(sc *Scenario) (progress func(bench.Progress), violation func(checker.Violation))
}

// Overrides replace what every scenario says, from the command line: a
// seed to reproduce a failure, another store to run the suite against, or
// the size a shrink found.
type Overrides struct {
	Seed    *int64
	Target  string // "" keeps the scenario's
	Writers int    // 0 keeps the scenario's
	Ops     int
	Chats   int
	// Flags are other command-line flags that shaped the run (how the
	// store was reached, the check's time budget), repeated verbatim in
	// repro commands.
	Flags []string
}

// Args renders the overrides as command-line flags, for repro commands.
func (o Overrides) Args() []string {
	var args []string
	if o.Target != "" {
		args = append(args, "--target", o.Target)
	}
	if o.Seed != nil {
		args = append(args, "--seed", strconv.FormatInt(*o.Seed, 10))
	}
	for _, f := range []struct {
		flag string
		v    int
	}{{"--writers", o.Writers}, {"--ops", o.Ops}, {"--chats", o.Chats}} {
		if f.v > 0 {
			args = append(args, f.flag, strconv.Itoa(f.v))
		}
	}
	return append(args, o.Flags...)
}
