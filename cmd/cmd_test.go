package cmd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Execute(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestBadFlagsExitTwoWithTheProblemNamed(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--writers", "0"}, "--writers must be from 1 to 10000, got 0"},
		// Found only when opened, these exited 5 (the run could not be
		// carried out); a DSN's password stays out of the message.
		{[]string{"bench", "--target", "postgres", "--dsn", "u:S3cretPW@host/db", "--duration", "1s"}, "--dsn: cannot parse `u:xxxxxx@host/db`"},
		{[]string{"bench", "--target", "postgres", "--dsn", "postgres://u:S3cretPW@h/db?sslmode=bogus", "--duration", "1s"}, "sslmode is invalid"},
		{[]string{"run", "x.yaml", "--dsn", "u:S3cretPW@host/db"}, "--dsn: cannot parse"},
		{[]string{"serve", "--listen", "nonsense"}, `--listen "nonsense" is not a host:port to listen on`},
		{[]string{"serve", "--listen", "127.0.0.1:99999"}, `--listen "127.0.0.1:99999" is not a host:port`},
		// A typo's size is refused, not run: a million writers took 2.6 GB
		// and ran on past --duration.
		{[]string{"bench", "--writers", "1000000", "--duration", "1s"}, "--writers must be from 1 to 10000, got 1000000"},
		{[]string{"bench", "--chats", "1000000000", "--duration", "1s"}, "--chats must be from 1 to 1000000, got 1000000000"},
		{[]string{"bench", "--readers", "20000", "--duration", "1s"}, "--readers must be from 0 to 10000"},
		{[]string{"bench", "--receivers", "10000", "--duration", "1s"}, "--receivers must be from 0 to 1000"},
		{[]string{"bench", "--receivers", "200", "--chats", "1000", "--duration", "1s"}, "is 200000 devices, more than 100000"},
		// math/rand's Zipf of NaN or +Inf never returns: the writers spun
		// and Ctrl-C could not stop them.
		{[]string{"bench", "--distribution", "zipf", "--zipf-s", "Inf", "--duration", "1s"}, "--zipf-s must be a finite number greater than 1, got +Inf"},
		{[]string{"bench", "--distribution", "zipf", "--zipf-s", "NaN", "--duration", "1s"}, "--zipf-s must be a finite number greater than 1, got NaN"},
		{[]string{"bench", "--distribution", "zipf", "--zipf-s", "1", "--duration", "1s"}, "--zipf-s must be a finite number greater than 1, got 1"},
		{[]string{"bench", "--distribution", "pareto"}, "--distribution"},
		{[]string{"bench", "--crash-after-allocate", "1.5"}, "--crash-after-allocate is a probability"},
		{[]string{"bench", "--broken", "nope"}, "--broken nope: target memory has no variant \"nope\""},
		{[]string{"bench", "--variant", "racy-counter"}, "--variant racy-counter: racy-counter is a bug (sequence_uniqueness must catch it), not a design; select it with --broken racy-counter"},
		{[]string{"bench", "--broken", "racy-counter", "--variant", "sync-watermark"}, "give --broken or --variant, not both"},
		{[]string{"bench", "--variant", "sync-watermark", "--strategy", "occ"}, "--variant sync-watermark with --strategy occ: sync-watermark waits"},
		{[]string{"serve", "--variant", "racy-counter"}, "select it with --broken racy-counter"},
		{[]string{"bench", "--kafka", "maybe"}, "--kafka must be"},
		{[]string{"bench", "--store", "sqlite"}, "--store must be"},
		{[]string{"bench", "--strategy", "lock"}, "--strategy must be"},
		{[]string{"bench", "--shard", "3/2"}, "--shard must be"},
		{[]string{"bench", "--format", "xml"}, "--format must be"},
		{[]string{"bench", "--target", "memory, memory"}, "--target names memory twice"},
		{[]string{"bench", "--topic", " "}, "--topic must name a Kafka topic"},
		{[]string{"bench", "--history", "/no/such/dir/h.jsonl"}, "directory /no/such/dir does not exist"},
		{[]string{"bench", "--threshold", "allocate.p99 < fast"}, `--threshold: threshold "allocate.p99 < fast"`},
		{[]string{"bench", "--threshold", "thruput > 1"}, `unknown metric "thruput"`},
		// It ran the whole run, then failed it for no data (exit 4).
		{[]string{"bench", "--threshold", "receiver_drops == 0", "--duration", "1s"}, `--threshold "receiver_drops == 0": only receivers (--receivers N) measure it`},
		{[]string{"bench", "--threshold", "fan_out.p99 < 1s", "--duration", "1s"}, "only receivers (--receivers N) measure it"},
		{[]string{"bench", "--writers", "many"}, "invalid argument"},
		{[]string{"bench", "--no-such-flag"}, "unknown flag"},
		{[]string{"check"}, "accepts 1 arg"},
		{[]string{"check", "/no/such/file.jsonl"}, "no such file"},
		{[]string{"check", "x", "--gaps", "sometimes"}, ""},
		{[]string{"check", "x", "--key-scope", "user"}, `--key-scope must be chat, client or sender, got "user"`},
		{[]string{"bench", "--target", "http", "--key-scope", "user"}, `--key-scope must be chat, client or sender, got "user"`},
		{[]string{"bench", "--target", "memory,ledger", "--key-scope", "client"}, "--key-scope applies only to --target http; targets memory, ledger would ignore it"},
		{[]string{"check", "x", "--lin-memory", "lots"}, `--lin-memory must be a size of at least 1MiB, such as 768MiB or 4GiB, got "lots"`},
		{[]string{"bench", "--lin-memory", "100KiB"}, `--lin-memory must be a size of at least 1MiB`},
		{[]string{"bench", "--broken", "racy-counter", "--strategy", "occ"}, "--broken racy-counter with --strategy occ: racy-counter breaks two-phase allocation's atomic ADD"},
		{[]string{"bench", "--broken", "ack-before-persist", "--strategy", "occ"}, "--broken ack-before-persist with --strategy occ: ack-before-persist answers between two-phase allocation and the persist commit"},
		{[]string{"bench", "--target", "ledger", "--strategy", "occ"}, "--strategy applies only to ADR-004's core"},
		{[]string{"bench", "--target", "memory,postgres", "--strategy", "occ"}, "target postgres would ignore it (it allocates its own way)"},
		{[]string{"bench", "--target", "postgres", "--store-throttle", "0.1"}, "--store-throttle applies only to ADR-004's core (targets memory, dynamodb, dynamodb-local); target postgres would ignore it"},
		{[]string{"bench", "--target", "memory,ledger", "--txn-cancelled-other", "0.1"}, "--txn-cancelled-other applies only to ADR-004's core (targets memory, dynamodb, dynamodb-local); target ledger would ignore it"},
		{[]string{"bench", "--store-internal-error", "2"}, "--store-internal-error is a probability"},
		{[]string{"bench", "--crash-before-allocate", "-1"}, "--crash-before-allocate is a probability"},
		{[]string{"bench", "--rate", "NaN"}, "--rate NaN must be a finite number of operations/s"},
		{[]string{"bench", "--rate", "Inf"}, "--rate +Inf must be a finite number of operations/s"},
		{[]string{"bench", "--rate", "-3"}, "--rate -3 must not be negative"},
		{[]string{"bench", "--rate", "1e-12", "--duration", "300ms"}, "--rate 1e-12 with 8 writers starts each writer's operations 8e+12s apart, no sooner than the run's 300ms ends"},
		{[]string{"bench", "--rate", "2", "--writers", "8", "--duration", "3s"}, "give more than 2.67 operations/s"},
		{[]string{"bench", "--rate", "1e10"}, "--rate 1e+10 with 8 writers leaves under a nanosecond"},
		{[]string{"bench", "--stages", "0s:100"}, "--stages 0s:100: stage 1 (0s:100) must last more than no time"},
		{[]string{"bench", "--stages", "10s:100,-1s:20"}, "stage 2 (-1s:20) must last more than no time"},
		{[]string{"bench", "--stages", "10s:-5"}, "stage 1 (10s:-5): the rate must not be negative"},
		{[]string{"bench", "--stages", "10s:0"}, "start no operation"},
		{[]string{"bench", "--stages", "10s"}, `--stages: stage 1 "10s" is not duration:rate`},
		{[]string{"bench", "--stages", "10s:100", "--rate", "50"}, "give --rate or --stages, not both"},
		{[]string{"bench", "--stages", "10s:100,30s:2000", "--duration", "10s"}, "--stages 10s:100,30s:2000 last 40s, but the run's duration is 10s"},
		{[]string{"check", "x", "--visualize", "/proc/x"}, "--visualize /proc/x: cannot create the directory"},
		{[]string{"frobnicate"}, "unknown command"},
		{[]string{"check", "x", "--require", "sync_complete"}, `--require: unknown invariant "sync_complete"; the checker reports sequence_uniqueness,`},
		{[]string{"check", "x", "--require", "gapless,,linearizability"}, `--require: unknown invariant ""`},
		{[]string{"bench", "--require", "linearisability"}, `--require: unknown invariant "linearisability"`},
	}
	for _, c := range cases {
		code, out, errOut := run(t, c.args...)
		if strings.Contains(out+errOut, "S3cret") {
			t.Errorf("%v: the password shown: %q", c.args, errOut)
		}
		if code != ExitBadInput {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", c.args, code, errOut)
		}
		if !strings.Contains(errOut, c.want) {
			t.Errorf("%v: stderr %q does not name %q", c.args, errOut, c.want)
		}
	}
}

func TestCheckMalformedHistoryNamesTheLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	content := `{"format":"chatseq-history","version":1}
{"type":"invoke","process":1,"f":"persist","time":1,"chat":"c","key":"k"}
{"type":"ok","process":1,"f":"persist","time":2,"chat":"c","key":"k","seq":"eleven","message_id":"m"}
`
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := run(t, "check", path)
	if code != ExitBadInput || !strings.Contains(errOut, path+":3:") {
		t.Fatalf("exit %d, stderr %q: want exit 2 naming %s:3", code, errOut, path)
	}
}

// A hand-written history whose last line ends with a newline but is not
// JSON is broken, not cut short: exit 2 naming that line. Only a last line
// the file ends inside (no newline) is a recorder's cut and a warning.
func TestCheckBrokenCompleteLastLineIsAnError(t *testing.T) {
	body := `{"format":"chatseq-history","version":1}
{"type":"invoke","process":1,"f":"persist","time":1,"chat":"c","key":"k"}
{"type":"ok","process":1,"f":"persist","time":2,"seq":1,"message_id":"m"}
{"type":"final","table":"counters","chat":"c","value":1,,}`
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.jsonl")
	if err := os.WriteFile(broken, []byte(body+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := run(t, "check", broken)
	if code != ExitBadInput || !strings.Contains(errOut, broken+":4: invalid JSON") {
		t.Fatalf("exit %d, stderr %q: want exit 2 naming %s:4", code, errOut, broken)
	}
	cut := filepath.Join(dir, "cut.jsonl")
	if err := os.WriteFile(cut, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, "check", cut)
	if code == ExitBadInput || !strings.Contains(errOut, cut+":4: last line skipped as cut short") || strings.Contains(out, "last line skipped") {
		t.Fatalf("a last line without a newline: exit %d, want one warning naming %s:4\n%s\n%s", code, cut, out, errOut)
	}
}

// initial_counter decides which sequences predate the run: a value the
// checker cannot read is not 0, it is unusable input (exit 2, line 1).
func TestCheckRefusesABadInitialCounter(t *testing.T) {
	dir := t.TempDir()
	for i, v := range []string{`-5`, `"abc"`, `1.5`, `1e3`, `[1]`, `null`} {
		path := filepath.Join(dir, fmt.Sprintf("h%d.jsonl", i))
		body := `{"format":"chatseq-history","version":1,"initial_counter":` + v + `}
{"type":"invoke","process":1,"f":"persist","time":1,"chat":"c","key":"k"}
{"type":"ok","process":1,"f":"persist","time":2,"seq":1,"message_id":"m"}
`
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := run(t, "check", path)
		if code != ExitBadInput || !strings.Contains(errOut, path+`:1: "initial_counter" must be a non-negative integer, got `+v) {
			t.Errorf("initial_counter %s: exit %d, stderr %q: want exit 2 naming %s:1", v, code, errOut, path)
		}
	}
}

// --visualize is checked before the history is read: a directory that
// cannot be made or written is refused, one that can is created.
func TestCheckVisualizeDirIsCheckedUpFront(t *testing.T) {
	dir := t.TempDir()
	hist := filepath.Join(dir, "h.jsonl")
	body := `{"format":"chatseq-history","version":1}
{"type":"invoke","process":1,"f":"persist","time":1,"chat":"c","key":"k"}
{"type":"ok","process":1,"f":"persist","time":2,"seq":1,"message_id":"m"}
`
	if err := os.WriteFile(hist, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ viz, want string }{
		{hist, "--visualize " + hist + ": a file, not a directory"},
		{filepath.Join(hist, "viz"), "--visualize " + filepath.Join(hist, "viz") + ": cannot create the directory"},
		{"/proc/x", "--visualize /proc/x: cannot create the directory"},
	} {
		code, out, errOut := run(t, "check", hist, "--visualize", c.viz)
		if code != ExitBadInput || !strings.Contains(errOut, c.want) || out != "" {
			t.Errorf("--visualize %s: exit %d, stdout %q, stderr %q: want exit 2 naming %q before any check", c.viz, code, out, errOut, c.want)
		}
	}
	viz := filepath.Join(dir, "new", "viz")
	// (The history has no final state, so the verdict itself is not the
	// point here: only that the flag is accepted and the check runs.)
	if code, out, errOut := run(t, "check", hist, "--visualize", viz); code == ExitBadInput || !strings.Contains(out, "linearizability") {
		t.Fatalf("--visualize to a new directory: exit %d\n%s\n%s", code, out, errOut)
	}
	if entries, err := os.ReadDir(viz); err != nil || len(entries) != 0 {
		t.Fatalf("%s: %v, entries %v; want it created and empty (a valid history has nothing to show)", viz, err, entries)
	}
}

func TestBenchThenCheckAgree(t *testing.T) {
	dir := t.TempDir()
	hist := filepath.Join(dir, "h.jsonl")
	code, out, errOut := run(t, "bench", "--ops", "400", "--duration", "0", "--writers", "3", "--chats", "2", "--history", hist, "--kafka", "off")
	if code != ExitOK || !strings.Contains(out, "verdict: PASS") || !strings.Contains(out, "allocate") {
		t.Fatalf("bench exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = run(t, "check", hist, "--format", "json")
	if code != ExitOK || !strings.Contains(out, `"valid": true`) {
		t.Fatalf("check exit %d\n%s", code, out)
	}
	code, out, _ = run(t, "bench", "--ops", "600", "--duration", "0", "--broken", "retry-reallocates", "--duplicate-after-ok", "0.3", "--history", hist, "--kafka", "off", "--format", "json")
	if code != ExitViolation || !strings.Contains(out, `"idempotency_guarantee"`) {
		t.Fatalf("broken bench exit %d, want 1\n%s", code, out)
	}
}

// A run in which the target acknowledged no persist (here every attempt
// crashes before it allocates) is not a pass: bench exits 3 and says why
// (report.JudgedRun). (--duration 1ns alone is no such run for certain:
// the writers may finish an operation or two before they stop.)
func TestABenchOfNoAcknowledgedPersistIsUnknown(t *testing.T) {
	code, out, errOut := run(t, "bench", "--crash-before-allocate", "1", "--duration", "300ms", "--kafka", "off", "--out", filepath.Join(t.TempDir(), "r"))
	if code != ExitUnknown || !strings.Contains(out, "verdict: UNKNOWN (no persist was acknowledged: ") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
}
