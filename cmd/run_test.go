package cmd

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/scenarios"
)

// writeScenario writes a scenario file into dir and returns its path.
func writeScenario(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// shippedWithEdit copies a shipped scenario with one text replacement.
func shippedWithEdit(t *testing.T, rel, old, new string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "scenarios", rel))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s does not contain %q", rel, old)
	}
	return writeScenario(t, t.TempDir(), filepath.Base(rel), strings.Replace(string(data), old, new, 1))
}

func TestRunPassingDirectoryWithJUnitAndJSON(t *testing.T) {
	junit := filepath.Join(t.TempDir(), "junit.xml")
	code, out, errOut := run(t, "run", "../scenarios/adr004", "--junit", junit, "--format", "json")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	var doc struct {
		Verdict   string `json:"verdict"`
		Passed    int    `json:"passed"`
		Total     int    `json:"total"`
		OutDir    string `json:"out_dir"`
		Scenarios []struct {
			Name    string `json:"name"`
			Verdict string `json:"verdict"`
			Repro   string `json:"repro"`
			History string `json:"history"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("--format json is not JSON: %v\n%s", err, out)
	}
	if doc.Verdict != "pass" || doc.Passed != 9 || doc.Total != 9 || doc.OutDir != "" {
		t.Fatalf("summary %+v", doc)
	}
	if !strings.HasPrefix(doc.Scenarios[0].Repro, "chatseq run ../scenarios/adr004/d1-basic-allocation.yaml --seed 1") {
		t.Fatalf("repro %q", doc.Scenarios[0].Repro)
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var suites scenarios.JUnitSuites
	if err := xml.Unmarshal(data, &suites); err != nil {
		t.Fatalf("--junit is not XML: %v", err)
	}
	if suites.Tests != 9 || suites.Failures != 0 || suites.Errors != 0 || len(suites.Suites) != 1 || len(suites.Suites[0].Cases) != 9 {
		t.Fatalf("junit %+v", suites)
	}
	// Every scenario passed, so the temporary histories were deleted:
	// neither the JUnit file nor the JSON names one. (Looked for where
	// each names a history, its case's "history:" line and the JSON's
	// "history" key, not as the word anywhere: the suite's name is the
	// scenarios' directory, whose path may hold it, /src/history-x/….)
	for _, c := range suites.Suites[0].Cases {
		for _, line := range strings.Split(c.SystemOut, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "history:") {
				t.Fatalf("a passing run without --out names a history it deleted in JUnit case %s: %q", c.Name, line)
			}
		}
	}
	for _, sc := range doc.Scenarios {
		if sc.History != "" {
			t.Fatalf("a passing run without --out names a history it deleted in its JSON: %s: %s", sc.Name, sc.History)
		}
	}
}

// A negative scenario whose broken behaviour was removed fails the run
// with exit 1, names the invariant no longer caught, prints the command
// that reproduces it and keeps the histories.
func TestRunNegativeScenarioThatStopsFailingExitsOne(t *testing.T) {
	path := shippedWithEdit(t, "broken/unconditional-idempotency.yaml", "broken: unconditional-idempotency\n", "")
	junit := filepath.Join(t.TempDir(), "junit.xml")
	code, out, errOut := run(t, "run", path, "--junit", junit)
	if code != ExitViolation {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"idempotency_guarantee was expected to fail but is pass",
		"reproduce: chatseq run " + path + " --seed 1",
		"0 of 1 scenarios passed (1 failed their invariant expectation)",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
	dir := between(out, "histories in ", "\n")
	defer os.RemoveAll(dir)
	if _, err := os.Stat(filepath.Join(dir, "broken-unconditional-idempotency", "history.jsonl")); err != nil {
		t.Fatalf("the failing run's history was not kept: %v", err)
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `failures="1"`) || !strings.Contains(string(data), "reproduce: chatseq run") {
		t.Fatalf("junit:\n%s", data)
	}
}

func between(s, from, to string) string {
	_, rest, _ := strings.Cut(s, from)
	v, _, _ := strings.Cut(rest, to)
	return v
}

func TestRunThresholdOnlyExitsFour(t *testing.T) {
	path := writeScenario(t, t.TempDir(), "slow.yaml", `name: impossible-threshold
ops: 5
sync_ratio: 0.5
seed: 5
expect: pass
allow_unknown: [sync_completeness]
thresholds:
  - persisted == 1000
  - allocate.p99 < 1h
`)
	code, out, _ := run(t, "run", path, "--out", t.TempDir())
	if code != ExitThresholds {
		t.Fatalf("exit %d, want 4\n%s", code, out)
	}
	if !strings.Contains(out, `threshold "persisted == 1000" (line 8) does not hold: measured`) || !strings.Contains(out, "THRESHOLD") {
		t.Fatalf("output:\n%s", out)
	}
}

func TestRunUndecidedExitsThree(t *testing.T) {
	// One send and no sync: sync_completeness is not applicable, so the
	// scenario passes, unless it is required, in the file or by --require.
	dir := t.TempDir()
	path := writeScenario(t, dir, "one.yaml", "ops: 1\nkafka: off\nexpect: pass\n")
	if code, out, _ := run(t, "run", path, "--out", t.TempDir()); code != ExitOK {
		t.Fatalf("exit %d, want 0\n%s", code, out)
	}
	required := writeScenario(t, dir, "required.yaml", "ops: 1\nkafka: off\nexpect: pass\nrequire: [sync_completeness]\n")
	for _, args := range [][]string{{"run", required}, {"run", path, "--require", "sync_completeness"}} {
		code, out, _ := run(t, append(args, "--out", t.TempDir())...)
		if code != ExitUnknown || !strings.Contains(out, "sync_completeness is unknown: required, but not applicable: no sync in the history") {
			t.Fatalf("%v: exit %d, want 3\n%s", args, code, out)
		}
	}
	// The repro command repeats --require.
	code, out, _ := run(t, "run", path, "--require", "sync_completeness,no_zero_sequence", "--format", "json", "--out", t.TempDir())
	if code != ExitUnknown || !strings.Contains(out, "--require sync_completeness,no_zero_sequence") {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

func TestRunBadInputExitsTwoWithFileAndLine(t *testing.T) {
	dir := t.TempDir()
	bad := writeScenario(t, dir, "bad.yaml", "name: bad\nops: 10\nwriter: 4\nexpect: pass\n")
	code, _, errOut := run(t, "run", bad)
	if code != ExitBadInput || !strings.Contains(errOut, bad+`:3: unknown key "writer" (did you mean writers?)`) {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	// Two files with one name.
	a := writeScenario(t, dir, "a/same.yaml", "ops: 1\nexpect: pass\n")
	b := writeScenario(t, dir, "b/same.yaml", "ops: 1\nexpect: pass\n")
	code, _, errOut = run(t, "run", a, b)
	if code != ExitBadInput || !strings.Contains(errOut, `scenario name "same" is also used by `+a) {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	empty := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "/no/such/dir"}, "no such file"},
		{[]string{"run", empty}, "no scenario files"},
		{[]string{"run", a, "--format", "xml"}, "--format must be text or json"},
		{[]string{"run", a, "--writers", "0"}, "--writers must be at least 1"},
		{[]string{"run", a, "--writers", "1000000"}, "--writers must be from 1 to 10000, got 1000000"},
		{[]string{"run", a, "--chats", "2000000"}, "--chats must be from 1 to 1000000, got 2000000"},
		{[]string{"run", a, "--target", "sqlite"}, `unknown target "sqlite"`},
		{[]string{"run", a, "--target", "memory", "--store", "memory"}, "not both"},
		{[]string{"run", a, "--seed", "x"}, "invalid argument"},
		{[]string{"run", a, "--require", "sync_complete"}, `--require: unknown invariant "sync_complete"`},
	} {
		code, _, errOut := run(t, c.args...)
		if code != ExitBadInput || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// --seed replaces every scenario's seed, reaches the history, and is in
// the repro command.
func TestRunSeedOverride(t *testing.T) {
	path := shippedWithEdit(t, "adr001/b3-server-crash-after-persist.yaml", "  - persisted == 300", "  - persisted == 301")
	out := t.TempDir()
	code, stdout, _ := run(t, "run", path, "--seed", "9", "--out", out)
	if code != ExitThresholds {
		t.Fatalf("exit %d\n%s", code, stdout)
	}
	if !strings.Contains(stdout, "reproduce: chatseq run "+path+" --seed 9\n") {
		t.Fatalf("repro missing:\n%s", stdout)
	}
	h, err := history.ReadFile(filepath.Join(out, "adr001-b3-server-crash-after-persist", "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if h.Header.Seed != 9 {
		t.Fatalf("history seed %d, want 9", h.Header.Seed)
	}
}

func TestRunShrinkPrintsTheSmallerRun(t *testing.T) {
	path := shippedWithEdit(t, "broken/racy-counter.yaml", "expect:\n  violates: [sequence_uniqueness]\n", "expect: pass\n")
	out := t.TempDir()
	code, stdout, _ := run(t, "run", path, "--shrink", "--out", out)
	if code != ExitViolation {
		t.Fatalf("exit %d\n%s", code, stdout)
	}
	if !strings.Contains(stdout, "shrunk in ") || !strings.Contains(stdout, "reproduce the shrunk run: chatseq run "+path+" --seed 1 --writers ") {
		t.Fatalf("no shrink reported:\n%s", stdout)
	}
	if _, err := os.Stat(filepath.Join(out, "broken-racy-counter.shrunk.jsonl")); err != nil {
		t.Fatal(err)
	}
}

// Without arguments, run reads ./scenarios.
func TestRunDefaultsToTheScenariosDirectory(t *testing.T) {
	dir := t.TempDir()
	writeScenario(t, dir, "scenarios/one.yaml", "ops: 5\nsync_ratio: 0.5\nseed: 5\nkafka: off\nexpect: pass\n")
	writeScenario(t, dir, "scenarios/testdata/ignored.yaml", "this is not a scenario")
	t.Chdir(dir)
	code, out, errOut := run(t, "run")
	if code != ExitOK || !strings.Contains(out, "1 of 1 scenarios passed") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
}

// --retries runs a scenario that misses only a threshold again and says
// so on every try; it still exits 4 when every try misses it, and refuses
// a negative count.
func TestRunRetriesThresholdFailures(t *testing.T) {
	file := writeScenario(t, t.TempDir(), "unreachable.yaml", `name: unreachable-threshold
writers: 2
ops: 50
kafka: off
thresholds:
  - operations > 1000000
expect: pass
`)
	junit := filepath.Join(t.TempDir(), "junit.xml")
	outDir := t.TempDir()
	code, out, errOut := run(t, "run", file, "--retries", "1", "--format", "json", "--junit", junit, "--out", outDir)
	if code != ExitThresholds {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "(try 1: only thresholds failed; running it again)") || !strings.Contains(errOut, "(try 2)") {
		t.Errorf("progress does not show both tries:\n%s", errOut)
	}
	var doc struct {
		Scenarios []struct {
			Verdict string `json:"verdict"`
			Tries   int    `json:"tries"`
			Earlier []struct {
				Dir     string `json:"dir"`
				History string `json:"history"`
			} `json:"earlier_tries"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if s := doc.Scenarios[0]; s.Verdict != "threshold" || s.Tries != 2 || len(s.Earlier) != 1 {
		t.Fatalf("json %s", out)
	}
	// Try 1's files survive try 2, where the JSON and JUnit say, and
	// read as a results directory.
	tryOne := filepath.Join(outDir, "unreachable-threshold", "try-1")
	if e := doc.Scenarios[0].Earlier[0]; e.Dir != tryOne || e.History != filepath.Join(tryOne, "history.jsonl") {
		t.Fatalf("try 1 kept in %q, history %q; want %s", e.Dir, e.History, tryOne)
	}
	for _, name := range []string{"history.jsonl", "results.json", "report.html", "latency.hlog"} {
		if _, err := os.Stat(filepath.Join(tryOne, name)); err != nil {
			t.Errorf("try 1's %s: %v", name, err)
		}
	}
	if code, out, errOut := run(t, "report", tryOne); code != ExitOK {
		t.Errorf("chatseq report %s: exit %d\n%s\n%s", tryOne, code, out, errOut)
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "<rerunFailure ") || !strings.Contains(string(data), "<failure ") || !strings.Contains(string(data), "history: "+filepath.Join(tryOne, "history.jsonl")) {
		t.Fatalf("junit:\n%s", data)
	}
	if code, _, errOut := run(t, "run", file, "--retries", "-1"); code != ExitBadInput || !strings.Contains(errOut, "--retries") {
		t.Fatalf("--retries -1: exit %d: %s", code, errOut)
	}
	// A scenario's own retries key, which --retries replaces.
	own := writeScenario(t, t.TempDir(), "own.yaml", "retries: 2\n"+strings.Replace(string(mustRead(t, file)), "name: unreachable-threshold", "name: own-retries", 1))
	if code, _, errOut := run(t, "run", own); code != ExitThresholds || !strings.Contains(errOut, "(try 3)") {
		t.Errorf("retries: 2: exit %d, want 4 after 3 tries:\n%s", code, errOut)
	}
	if code, _, errOut := run(t, "run", own, "--retries", "0"); code != ExitThresholds || strings.Contains(errOut, "(try ") {
		t.Errorf("retries: 2 with --retries 0: exit %d, want 4 after 1 try:\n%s", code, errOut)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
