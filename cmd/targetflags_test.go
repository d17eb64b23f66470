package cmd

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/chatseq/chatseq/targets"
)

// flagArgs gives flag a value its type parses; the refusal comes before
// any value is judged.
func flagArgs(flag *pflag.Flag) []string {
	switch flag.Value.Type() {
	case "bool":
		return []string{"--" + flag.Name + "=true"}
	case "duration":
		return []string{"--" + flag.Name, "1s"}
	case "int", "int32", "int64":
		return []string{"--" + flag.Name, "4096"}
	case "float64":
		return []string{"--" + flag.Name, "0.1"}
	}
	return []string{"--" + flag.Name, "x: y"}
}

// ignoredPairs lists every flag of fs in the table with each of the
// candidate targets that does not read it.
func ignoredPairs(fs *pflag.FlagSet, candidates []string) (pairs [][2]string) {
	names := make([]string, 0, len(targetFlags))
	for name := range targetFlags {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if fs.Lookup(name) == nil {
			continue
		}
		for _, target := range candidates {
			if !slices.Contains(targetFlags[name].readers, target) {
				pairs = append(pairs, [2]string{name, target})
			}
		}
	}
	return pairs
}

func TestBenchRefusesFlagsItsTargetsIgnore(t *testing.T) {
	fs := newBenchCommand().Flags()
	pairs := ignoredPairs(fs, targets.Names())
	if len(pairs) < 50 {
		t.Fatalf("only %d flag/target pairs where the flag is ignored: is the table read?", len(pairs))
	}
	for _, p := range pairs {
		flag, target := p[0], p[1]
		// --writers 0: a run the refusal misses stops at once, on
		// another message.
		args := append([]string{"bench", "--target", target, "--writers", "0"}, flagArgs(fs.Lookup(flag))...)
		code, _, errOut := run(t, args...)
		want := "--" + flag + " applies only to "
		if code != ExitBadInput || !strings.Contains(errOut, want) || !strings.Contains(errOut, "target "+target+" would ignore it") {
			t.Errorf("%v: exit %d, stderr %q: want exit 2 naming --%s and target %s", args, code, errOut, flag, target)
		}
	}
}

func TestServeRefusesFlagsItsTargetIgnores(t *testing.T) {
	fs := newServeCommand().Flags()
	pairs := ignoredPairs(fs, servable())
	if len(pairs) < 20 {
		t.Fatalf("only %d flag/target pairs where the flag is ignored: is the table read?", len(pairs))
	}
	for _, p := range pairs {
		flag, target := p[0], p[1]
		// --broken nope: a server the refusal misses never starts.
		args := append([]string{"serve", "--target", target, "--broken", "nope"}, flagArgs(fs.Lookup(flag))...)
		code, _, errOut := run(t, args...)
		if code != ExitBadInput || !strings.Contains(errOut, "--"+flag+" applies only to ") || !strings.Contains(errOut, "target "+target+" would ignore it") {
			t.Errorf("%v: exit %d, stderr %q: want exit 2 naming --%s and target %s", args, code, errOut, flag, target)
		}
	}
}

// A way of reaching one target of several is kept for that one; a
// setting of the run must hold for every target of a side-by-side run.
func TestSideBySideRefusesOnlyWhatNoTargetOrNotEveryTargetReads(t *testing.T) {
	cases := []struct {
		flag    string
		targets []string
		refused string // "" not refused
	}{
		{"dsn", []string{"memory", "postgres"}, ""},
		{"dsn", []string{"memory", "ledger"}, "targets memory, ledger would ignore it"},
		{"url", []string{"http", "memory"}, ""},
		{"strategy", []string{"memory", "dynamodb"}, ""},
		{"strategy", []string{"memory", "postgres"}, "target postgres would ignore it (it allocates its own way)"},
		{"key-scope", []string{"http", "ledger"}, "--key-scope applies only to --target http; target ledger would ignore it"},
	}
	for _, c := range cases {
		fs := newBenchCommand().Flags()
		if err := fs.Set(c.flag, "occ"); err != nil {
			t.Fatal(err)
		}
		err := refuseIgnoredFlags(fs, c.targets)
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("--%s with %v: refused (%v), want it kept", c.flag, c.targets, err)
		case c.refused != "" && (err == nil || !strings.Contains(err.Error(), c.refused)):
			t.Errorf("--%s with %v: %v, want a refusal naming %q", c.flag, c.targets, err, c.refused)
		}
	}
}

func TestBenchRefusesReaderPollWithoutReaders(t *testing.T) {
	code, _, errOut := run(t, "bench", "--reader-poll", "1ms", "--writers", "0")
	if code != ExitBadInput || !strings.Contains(errOut, "--reader-poll paces the catch-up clients of --readers, and there are none") {
		t.Fatalf("exit %d, stderr %q: want exit 2 naming --reader-poll and --readers", code, errOut)
	}
}

// run's flags reach each scenario's target: one that none of the
// scenarios' targets reads is refused, one that some scenario's reads is
// kept.
func TestRunRefusesFlagsNoScenarioTargetReads(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tiny.yaml")
	if err := os.WriteFile(file, []byte("name: tiny\nwriters: 1\nchats: 1\nops: 5\nexpect: pass\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--dsn", "postgres://u@h/db"},
		{"--header", "X-Test: 1"},
		{"--http-timeout", "5s"},
		{"--endpoint", "http://localhost:8000"},
		{"--insecure"},
	} {
		name := strings.TrimPrefix(args[0], "--")
		all := append([]string{"run", "--out", filepath.Join(dir, "out"), file}, args...)
		code, _, errOut := run(t, all...)
		if code != ExitBadInput || !strings.Contains(errOut, "--"+name+" applies only to ") || !strings.Contains(errOut, "target memory would ignore it") {
			t.Errorf("%v: exit %d, stderr %q: want exit 2 naming --%s and target memory", all, code, errOut, name)
		}
	}
	fs := newRunCommand().Flags()
	if err := fs.Set("dsn", "postgres://u@h/db"); err != nil {
		t.Fatal(err)
	}
	if err := refuseFlagsNoScenarioReads(fs, []string{"memory", "postgres"}); err != nil {
		t.Errorf("--dsn with a postgres scenario among others: refused (%v)", err)
	}
}

// run hands its transport flags to the scenarios' target http: a guarded
// service is reached with --header and --insecure, and no output shows
// the header's value.
func TestRunReachesAGuardedServiceWithItsTransportFlags(t *testing.T) {
	const token, apiKey = "run-b3arer-5e2a", "run-k3y-77c0"
	srv, refused := guardedService(t, token, apiKey)
	dir := t.TempDir()
	file := filepath.Join(dir, "guarded.yaml")
	if err := os.WriteFile(file, []byte("name: guarded\ntarget: http\nwriters: 2\nchats: 2\nops: 40\nexpect: pass\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, "run", file, "--out", filepath.Join(dir, "out"), "--url", srv.URL, "--insecure",
		"--header", "Authorization: Bearer "+token, "--header", "X-Api-Key: "+apiKey, "--http-timeout", "20s")
	if code != ExitOK || refused.Load() != 0 {
		t.Fatalf("exit %d, %d requests refused 401\n%s\n%s", code, refused.Load(), stdout, stderr)
	}
	if strings.Contains(stdout+stderr, token) || strings.Contains(stdout+stderr, apiKey) {
		t.Errorf("the output shows a header's value:\n%s\n%s", stdout, stderr)
	}
}

// Step 5's Kafka flags are refused where no Kafka of this process is
// used: the ledger publishes no events, --target http's service publishes
// to its own Kafka (--kafka means nothing to it; the topic it reads back
// from --brokers does). One target of several that reads them keeps them.
func TestKafkaFlagsRefusedWhereNoEventsArePublishedHere(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--target", "ledger", "--kafka", "off", "--writers", "0"}, "--kafka applies only to targets whose events this process publishes"},
		{[]string{"bench", "--target", "http", "--url", "http://127.0.0.1:1", "--kafka", "embedded", "--writers", "0"}, "target http would ignore it (--target http's service publishes to its own Kafka"},
		{[]string{"bench", "--target", "ledger", "--topic", "events", "--writers", "0"}, "--topic applies only to targets that publish events"},
		{[]string{"bench", "--target", "ledger", "--partitions", "4", "--writers", "0"}, "--partitions applies only to targets that publish events"},
		{[]string{"serve", "--target", "ledger", "--kafka", "embedded", "--broken", "nope"}, "target ledger would ignore it"},
		{[]string{"serve", "--target", "ledger", "--topic", "events", "--broken", "nope"}, "(the ledger publishes no events)"},
	} {
		code, _, errOut := run(t, c.args...)
		if code != ExitBadInput || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q: want exit 2 and %q", c.args, code, errOut, c.want)
		}
	}
	for _, c := range []struct {
		flag, value string
		targets     []string
	}{
		{"kafka", "off", []string{"memory", "ledger"}},
		{"kafka", "off", []string{"postgres", "http"}},
		{"topic", "events", []string{"http"}},
		{"partitions", "4", []string{"http", "ledger"}},
	} {
		fs := newBenchCommand().Flags()
		if err := fs.Set(c.flag, c.value); err != nil {
			t.Fatal(err)
		}
		if err := refuseIgnoredFlags(fs, c.targets); err != nil {
			t.Errorf("--%s with %v: refused (%v), want it kept", c.flag, c.targets, err)
		}
	}
}
