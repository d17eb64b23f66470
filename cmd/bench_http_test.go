package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/internal/serve"
	"github.com/chatseq/chatseq/targets/ledger"
)

func TestHTTPTargetFlagsExitTwoWithTheProblemNamed(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "api.yaml")
	if err := os.WriteFile(bad, []byte("send:\n  bogus: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--target", "http"}, "--target http needs --url URL"},
		{[]string{"bench", "--target", "http", "--url", "http://127.0.0.1:1", "--api", bad}, bad + ":2: field bogus not found"},
		{[]string{"bench", "--target", "http", "--url", "http://127.0.0.1:1", "--kill-every", "1s"}, "--kill-every needs --serve CMD"},
		{[]string{"bench", "--target", "http", "--serve", "true", "--kill-every", "1s", "--duration", "0", "--ops", "5"}, "--kill-every needs a --duration"},
		{[]string{"serve", "--target", "http"}, "--target: unknown target \"http\""},
		{[]string{"serve", "--broken", "nope"}, "has no variant \"nope\""},
		{[]string{"serve", "--push-max-connections", "0"}, "--push-max-connections must be at least 1"},
		{[]string{"serve", "--kafka", "bogus"}, `--kafka must be off or embedded (or give --brokers), got "bogus"`},
		{[]string{"serve", "--kafka", "embedded", "--partitions", "0"}, "--partitions must be at least 1, got 0"},
		{[]string{"serve", "--partitions", "-5"}, "--partitions must be at least 1, got -5"},
	}
	for _, c := range cases {
		code, _, errOut := run(t, c.args...)
		if code != ExitBadInput || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 naming %q", c.args, code, errOut, c.want)
		}
	}
}

// A --url that is no http(s) URL is bad input, exit 2, named without the
// credentials it holds: the message quoted the URL as given, a password
// with a space or a URL without its scheme in full, and exited 5.
func TestABadURLExitsTwoWithoutItsCredentials(t *testing.T) {
	for _, c := range []struct{ url, want string }{
		{"alice:S3cretPW@127.0.0.1:1", `"***@127.0.0.1:1": not an http:// or https:// URL`},
		{"http://alice:S3cret PW@127.0.0.1:1", `"http://***@127.0.0.1:1": net/url: invalid userinfo`},
		{"http://alice:S3cretPW@127.0.0.1:1/%zz", `"http://***@127.0.0.1:1/%zz": invalid URL escape "%zz"`},
		{"ftp://alice:S3cretPW@127.0.0.1:1", `"ftp://***@127.0.0.1:1": not an http:// or https:// URL`},
		{"http://", `"http://": no host`},
		{"http://127.0.0.1:1/?token=S3cretPW", `"http://127.0.0.1:1/...": a base URL takes no query`},
		{"http://127.0.0.1:1/?", `"http://127.0.0.1:1/...": a base URL takes no query`},
		{"http://127.0.0.1:1/#S3cretPW", `"http://127.0.0.1:1/...": a base URL takes no fragment`},
		{"http://127.0.0.1:1/#", `"http://127.0.0.1:1/...": a base URL takes no fragment`},
		{"http://alice:S3c#retPW@127.0.0.1:1", `"http://***@127.0.0.1:1": `},
		{"http://alice:S3c/ret?PW@127.0.0.1:1", `"http://***@127.0.0.1:1": `},
		{"http://alice:S3cretPW@127.0.0.1:1/%zz?a#b", `"http://***@127.0.0.1:1/%zz...": invalid URL escape "%zz"`},
	} {
		code, out, errOut := run(t, "bench", "--target", "http", "--url", c.url, "--duration", "1s", "--history", filepath.Join(t.TempDir(), "h.jsonl"))
		if code != ExitBadInput || !strings.Contains(errOut, c.want) || strings.Contains(out+errOut, "S3c") {
			t.Errorf("--url %q: exit %d, %q; want exit 2 naming %s, and no password", c.url, code, errOut, c.want)
		}
	}
}

// serveSelf is a --serve command that runs this test binary as 'chatseq
// serve' with args.
func serveSelf(args string) string {
	return "CHATSEQ_TEST_MAIN_ARGS='serve " + args + "' exec '" + os.Args[0] + "' -test.run='^$'"
}

// --kill-every against a service that keeps its state in its process (an
// in-memory chatseq serve) would fail the run as if the service had lost
// every message acknowledged before a kill: refused, exit 2, saying why.
// The service is found where it says it listens, without --url.
func TestKillsOfAServiceWhoseStateARestartWipesAreRefused(t *testing.T) {
	listen := fmt.Sprintf("--listen 127.0.0.1:%d", closedPort(t))
	code, out, errOut := run(t, "bench", "--target", "http", "--serve", serveSelf(listen), "--kill-every", "300ms", "--duration", "1s", "--history", filepath.Join(t.TempDir(), "h.jsonl"))
	if code != ExitBadInput || !strings.Contains(errOut, "the restarted service starts empty") || !strings.Contains(errOut, "ADR-004 core, embedded") {
		t.Fatalf("exit %d, want %d saying a restart wipes the in-memory store:\nstdout:\n%s\nstderr:\n%s", code, ExitBadInput, out, errOut)
	}
}

// chatseq serve says what its API promises and which bench flags state
// it: driven with them the served ledger passes; driven as chatseq's own
// API (per-chat keys, the original answer to a reused key, gaps allowed)
// it fails, since every run sends keys from two senders and reuses some.
// The served core needs no flag. bench --serve adopts the line: without
// flags it drives the ledger under the ledger's contract (it drove it as
// chatseq's API, where a gap the ledger promises never to make passed),
// and a flag still states its field.
func TestServeSaysHowToDriveIt(t *testing.T) {
	core, err := serve.Start(context.Background(), serve.Options{Target: "memory", Kafka: serve.KafkaOff, Listen: "127.0.0.1:0", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	coreLine := contractLine(core.HTTPContract())
	core.Close()
	if !strings.HasSuffix(coreLine, "bench --target http states it unasked") {
		t.Errorf("the core's contract line %q", coreLine)
	}
	led, err := serve.Start(context.Background(), serve.Options{Target: ledger.Name, Kafka: serve.KafkaOff, Listen: "127.0.0.1:0", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	line := contractLine(led.HTTPContract())
	led.Close()
	const drive = "; drive it with bench --target http "
	i := strings.Index(line, drive)
	if i < 0 {
		t.Fatalf("the ledger's contract line %q names no flags", line)
	}
	flagText, _, _ := strings.Cut(line[i+len(drive):], " (")
	flags := strings.Fields(flagText)
	for _, want := range []string{"--key-scope client", "--key-reuse reject", "--gaps forbidden"} {
		if !strings.Contains(line, want) {
			t.Errorf("the ledger's contract line %q lacks %s", line, want)
		}
	}
	chatseqsAPI := []string{"--key-scope", "chat", "--key-reuse", "return-original", "--gaps", "allowed"}
	for _, c := range []struct {
		name  string
		flags []string
		want  int
		gaps  string // the history header's
	}{
		{"no flags (the line adopted)", nil, ExitOK, history.GapsForbidden},
		{"the line's flags", flags, ExitOK, history.GapsForbidden},
		{"chatseq's API's flags", chatseqsAPI, ExitViolation, history.GapsAllowed},
	} {
		listen := fmt.Sprintf("--target %s --listen 127.0.0.1:%d", ledger.Name, closedPort(t))
		file := filepath.Join(t.TempDir(), "h.jsonl")
		args := append([]string{"bench", "--target", "http", "--serve", serveSelf(listen), "--duration", "1s", "--history", file}, c.flags...)
		code, out, errOut := run(t, args...)
		if code != c.want {
			t.Fatalf("served ledger, %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", c.name, code, c.want, out, errOut)
		}
		if h, err := history.ReadFile(file); err != nil || h.Header.Contract.Gaps != c.gaps {
			t.Errorf("served ledger, %s: the history's contract (%v) says gaps %q, want %q", c.name, err, h.Header.Contract.Gaps, c.gaps)
		}
		if adopted := strings.Contains(out, "under the contract it states: gaps forbidden, key_reuse reject, key_scope client"); adopted != (c.flags == nil) {
			t.Errorf("served ledger, %s: the report says the stated contract is adopted: %v\n%s", c.name, adopted, out)
		}
	}
}
