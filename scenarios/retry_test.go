package scenarios

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/report"
)

// tries returns a run function that hands out the outcomes in turn and
// counts how many it handed out.
func tries(t *testing.T, outcomes ...*Outcome) (func() *Outcome, *int) {
	n := 0
	return func() *Outcome {
		if n == len(outcomes) {
			t.Fatalf("run %d times; only %d outcomes prepared", n+1, len(outcomes))
		}
		n++
		return outcomes[n-1]
	}, &n
}

func outcomeOf(v Verdict, problems ...string) *Outcome {
	return &Outcome{
		Scenario: &Scenario{File: "scenarios/load/slow.yaml", Name: "slow"}, Config: bench.Config{Seed: 7},
		Verdict: v, Problems: problems, Elapsed: 2 * time.Second, History: "/tmp/out/slow/history.jsonl", Lines: 40,
	}
}

func slowOutcome() *Outcome {
	o := outcomeOf(ThresholdFail, `threshold "throughput > 1000" (line 12) does not hold: measured 412 ops/s`)
	o.Thresholds = []ThresholdResult{{Expr: "throughput > 1000", Line: 12, Actual: "412 ops/s"}}
	return o
}

// A scenario that fails only a threshold is run again; when a later try
// passes it passes, and the text, JSON and JUnit reports each show the
// failed try (JUnit as Surefire's flakyFailure, counted as passed).
func TestThresholdFailureIsRetriedAndEveryTryReported(t *testing.T) {
	passing := outcomeOf(Pass)
	passing.Thresholds = []ThresholdResult{{Expr: "throughput > 1000", Line: 12, Actual: "1380 ops/s", OK: true}}
	run, n := tries(t, slowOutcome(), passing)
	var told []bool
	o := retry(context.Background(), 2, run, func(_ int, _ *Outcome, again bool) { told = append(told, again) })
	if *n != 2 || o.Verdict != Pass || o.Tries() != 2 || len(o.Attempts) != 1 {
		t.Fatalf("ran %d times: verdict %s, %d tries", *n, o.Verdict, o.Tries())
	}
	if len(told) != 2 || !told[0] || told[1] {
		t.Fatalf("progress told %v, want [true false]", told)
	}
	a := o.Attempts[0]
	if a.Number != 1 || a.Verdict != ThresholdFail || a.Seed != 7 || len(a.Problems) != 1 || a.Thresholds[0].Actual != "412 ops/s" {
		t.Fatalf("first try %+v", a)
	}
	if o.TotalElapsed() != 4*time.Second {
		t.Errorf("total time %s, want both tries' 4s", o.TotalElapsed())
	}
	sum := &Summary{Outcomes: []*Outcome{o}, Elapsed: 4 * time.Second}

	var text bytes.Buffer
	if err := writeText(&text, sum, 0); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"PASS (try 2)", "1 of 1 scenarios passed, 1 of them on a retry", "PASS slow (scenarios/load/slow.yaml) on try 2 of 2",
		"try 1 of 2: THRESHOLD in 2.0s", "measured 412 ops/s"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}

	var js bytes.Buffer
	if err := WriteJSON(&js, sum); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Verdict   Verdict `json:"verdict"`
		Retried   int     `json:"passed_on_retry"`
		Scenarios []struct {
			Verdict Verdict   `json:"verdict"`
			Tries   int       `json:"tries"`
			Earlier []Attempt `json:"earlier_tries"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Verdict != Pass || doc.Retried != 1 || doc.Scenarios[0].Tries != 2 || len(doc.Scenarios[0].Earlier) != 1 ||
		doc.Scenarios[0].Earlier[0].Verdict != ThresholdFail || doc.Scenarios[0].Earlier[0].Thresholds[0].OK {
		t.Fatalf("json %s", js.String())
	}

	var x bytes.Buffer
	if err := WriteJUnit(&x, sum, time.Now()); err != nil {
		t.Fatal(err)
	}
	var suites JUnitSuites
	if err := xml.Unmarshal(x.Bytes(), &suites); err != nil {
		t.Fatal(err)
	}
	c := suites.Suites[0].Cases[0]
	if suites.Failures != 0 || c.Failure != nil || len(c.FlakyFailures) != 1 || len(c.RerunFailures) != 0 || c.Time != "4.000" {
		t.Fatalf("junit %s", x.String())
	}
	if f := c.FlakyFailures[0]; f.Type != "threshold" || !strings.Contains(f.Message, "412 ops/s") || !strings.Contains(f.StackTrace, "reproduce: chatseq run scenarios/load/slow.yaml --seed 7") {
		t.Fatalf("flakyFailure %+v", f)
	}
	if !strings.Contains(x.String(), "<flakyFailure ") {
		t.Fatalf("no <flakyFailure> element:\n%s", x.String())
	}
}

// A scenario that fails its thresholds on every try fails them, after
// retries+1 tries, each reported (JUnit: the failure and a rerunFailure
// per earlier try).
func TestThresholdFailureOnEveryTryStaysAFailure(t *testing.T) {
	run, n := tries(t, slowOutcome(), slowOutcome(), slowOutcome())
	o := retry(context.Background(), 2, run, nil)
	if *n != 3 || o.Verdict != ThresholdFail || o.Tries() != 3 {
		t.Fatalf("ran %d times: verdict %s, %d tries", *n, o.Verdict, o.Tries())
	}
	sum := &Summary{Outcomes: []*Outcome{o}}
	var text bytes.Buffer
	if err := writeText(&text, sum, 0); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"THRESHOLD (try 3)", "try 1 of 3: THRESHOLD", "try 2 of 3: THRESHOLD", "try 3 of 3, which counts:"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	c := JUnit(sum, time.Now()).Suites[0].Cases[0]
	if c.Failure == nil || len(c.RerunFailures) != 2 || len(c.FlakyFailures) != 0 {
		t.Fatalf("junit case %+v", c)
	}
}

// No try is made after one whose invariants failed, were undecided or
// that could not run, even with retries left and thresholds failing too:
// another try could turn a correctness failure into a pass. A threshold
// failure followed by an invariant failure ends on the invariant failure.
func TestNonThresholdFailuresAreNeverRetried(t *testing.T) {
	failed := outcomeOf(Fail, "sequence_uniqueness failed: seq 3 acked twice", `threshold "throughput > 1000" (line 12) does not hold: measured 412 ops/s`)
	failed.Failing = []string{"sequence_uniqueness"}
	undecided := outcomeOf(Undecided, "linearizability is unknown: time budget ran out")
	broken := outcomeOf(RunError, "the run could not be carried out: no DynamoDB")
	broken.Err = errors.New("no DynamoDB")
	for _, first := range []*Outcome{failed, undecided, broken} {
		run, n := tries(t, first, outcomeOf(Pass))
		o := retry(context.Background(), 3, run, nil)
		if *n != 1 || o.Verdict != first.Verdict || o.Tries() != 1 {
			t.Errorf("%s: ran %d times, verdict %s", first.Verdict, *n, o.Verdict)
		}
	}
	run, n := tries(t, slowOutcome(), failed, outcomeOf(Pass))
	o := retry(context.Background(), 3, run, nil)
	if *n != 2 || o.Verdict != Fail || o.Tries() != 2 {
		t.Errorf("threshold then invariant failure: ran %d times, verdict %s", *n, o.Verdict)
	}
}

// The same, through real runs: a racy counter whose scenario expects a
// pass fails sequence_uniqueness (and an unreachable threshold) and is run
// once; a correct run that only misses a threshold is run 1+retries times.
func TestRunRetryingRunsAgainOnlyForThresholds(t *testing.T) {
	racy, err := Decode([]byte(`name: racy-expects-pass
broken: racy-counter
writers: 8
chats: 1
ops: 400
kafka: off
thresholds:
  - operations > 1000000
expect: pass
`), "racy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	runs := 0
	o := RunRetrying(context.Background(), racy, Options{OutDir: t.TempDir()}, 2, func(int, *Outcome, bool) { runs++ })
	if o.Verdict != Fail || runs != 1 || o.Tries() != 1 {
		t.Fatalf("racy counter: verdict %s after %d runs (%v)", o.Verdict, runs, o.Problems)
	}

	slow := missesAThreshold(t)
	runs = 0
	o = RunRetrying(context.Background(), slow, Options{OutDir: t.TempDir()}, 2, func(int, *Outcome, bool) { runs++ })
	if o.Verdict != ThresholdFail || runs != 3 || o.Tries() != 3 {
		t.Fatalf("threshold only: verdict %s after %d runs (%v)", o.Verdict, runs, o.Problems)
	}
	for i, a := range o.Attempts {
		if a.Number != i+1 || a.Verdict != ThresholdFail || a.Seed != o.Config.Seed {
			t.Errorf("try %d: %+v", i+1, a)
		}
	}
}

// writingTries returns a run function whose try n writes its own files
// into dir, as Run does (history, results.json, report.html, a drawing),
// and fails its threshold on the first failing tries, then passes.
func writingTries(t *testing.T, dir string, failing int) func() *Outcome {
	n := 0
	return func() *Outcome {
		n++
		o := slowOutcome()
		if n > failing {
			o = outcomeOf(Pass)
		}
		o.Dir, o.History = dir, filepath.Join(dir, "history.jsonl")
		for name, text := range map[string]string{"history.jsonl": "try", "results.json": "try", "report.html": "try", "visualize/linearizability-chat-1.html": "try"} {
			path := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(fmt.Sprintf("%s %d", text, n)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return o
	}
}

// A scenario that passed on try 2 keeps try 1's files, which try 2 would
// otherwise overwrite, in try-1, and names that directory in the text,
// JSON and JUnit reports (JUnit's flakyFailure); a run that later removes
// a temporary directory forgets the names.
func TestEarlierTriesFilesAreKept(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "slow")
	o := retry(context.Background(), 2, writingTries(t, dir, 1), nil)
	if o.Verdict != Pass || o.Tries() != 2 {
		t.Fatalf("verdict %s after %d tries", o.Verdict, o.Tries())
	}
	tryOne := filepath.Join(dir, "try-1")
	for _, name := range []string{"history.jsonl", "results.json", "report.html", "visualize/linearizability-chat-1.html"} {
		if data, err := os.ReadFile(filepath.Join(tryOne, name)); err != nil || string(data) != "try 1" {
			t.Errorf("try 1's %s: %q, %v", name, data, err)
		}
		if data, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(data) != "try 2" {
			t.Errorf("try 2's %s: %q, %v", name, data, err)
		}
	}
	a := o.Attempts[0]
	if a.Dir != tryOne || a.History != filepath.Join(tryOne, "history.jsonl") {
		t.Fatalf("try 1 kept in %q, history %q", a.Dir, a.History)
	}
	sum := &Summary{Outcomes: []*Outcome{o}}
	if !sum.WorthKeeping() {
		t.Error("a scenario that passed on a retry: the results directory is not worth keeping")
	}
	var text bytes.Buffer
	if err := writeText(&text, sum, 0); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"kept: " + tryOne + " (history, results.json, report.html", "try 2 of 2, which counts: PASS in 2.0s; its files in " + dir} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, sum); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Scenarios []struct {
			Earlier []Attempt `json:"earlier_tries"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if e := doc.Scenarios[0].Earlier; len(e) != 1 || e[0].Dir != tryOne || e[0].History != a.History {
		t.Fatalf("json earlier_tries %+v", e)
	}
	c := JUnit(sum, time.Now()).Suites[0].Cases[0]
	if len(c.FlakyFailures) != 1 || !strings.Contains(c.FlakyFailures[0].StackTrace, "history: "+a.History) ||
		!strings.Contains(c.FlakyFailures[0].StackTrace, "report: "+filepath.Join(tryOne, "report.html")) || !strings.Contains(c.SystemOut, "try 1 kept: "+tryOne) {
		t.Fatalf("junit case %+v", c)
	}
	sum.HistoriesRemoved()
	if o.Attempts[0].Dir != "" || o.Attempts[0].History != "" {
		t.Errorf("removed directory still named: %+v", o.Attempts[0])
	}
}

// A results directory whose earlier try's files cannot be moved aside is
// not run again: the next try would overwrite them.
func TestTryWhoseFilesCannotBeKeptIsNotRunAgain(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "slow")
	if err := os.MkdirAll(filepath.Join(dir, "try-1"), 0o755); err != nil {
		t.Fatal(err) // in the way of try 1's directory
	}
	o := retry(context.Background(), 2, writingTries(t, dir, 1), nil)
	if o.Verdict != ThresholdFail || o.Tries() != 1 || !strings.Contains(strings.Join(o.Problems, "\n"), "not run again (--retries): try 1's files could not be kept") {
		t.Fatalf("verdict %s after %d tries: %v", o.Verdict, o.Tries(), o.Problems)
	}
}

// Through real runs: a scenario that misses its threshold on every try
// keeps each earlier try's history and report in try-N, readable as a
// results directory, and the last try's in the scenario's directory; the
// try-N directories of an earlier chatseq run are removed first.
func TestRunRetryingKeepsEveryTrysFiles(t *testing.T) {
	slow := missesAThreshold(t)
	out := t.TempDir()
	stale := filepath.Join(out, "misses-a-threshold", "try-7")
	if err := os.MkdirAll(stale, 0o755); err != nil {
		t.Fatal(err)
	}
	o := RunRetrying(context.Background(), slow, Options{OutDir: out}, 2, nil)
	if o.Verdict != ThresholdFail || o.Tries() != 3 {
		t.Fatalf("verdict %s after %d tries (%v)", o.Verdict, o.Tries(), o.Problems)
	}
	dirs := []string{o.Attempts[0].Dir, o.Attempts[1].Dir, o.Dir}
	want := []string{filepath.Join(out, "misses-a-threshold", "try-1"), filepath.Join(out, "misses-a-threshold", "try-2"), filepath.Join(out, "misses-a-threshold")}
	for i, d := range dirs {
		if d != want[i] {
			t.Errorf("try %d in %q, want %q", i+1, d, want[i])
			continue
		}
		saved, err := report.LoadDir(d)
		if err != nil {
			t.Errorf("try %d: %v", i+1, err)
			continue
		}
		if saved.Results.Config.Seed != o.Config.Seed {
			t.Errorf("try %d: seed %d", i+1, saved.Results.Config.Seed)
		}
		for _, name := range []string{report.HistoryFile, report.ReportFile, report.HlogFile} {
			if _, err := os.Stat(filepath.Join(d, name)); err != nil {
				t.Errorf("try %d: %v", i+1, err)
			}
		}
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("an earlier run's try-7 is still there: %v", err)
	}
}

// missesAThreshold is a correct scenario that misses its threshold on
// every try: a retry's only cause.
func missesAThreshold(t *testing.T) *Scenario {
	t.Helper()
	slow, err := Decode([]byte(`name: misses-a-threshold
writers: 2
chats: 2
ops: 50
kafka: off
thresholds:
  - operations > 1000000
expect: pass
`), "slow.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return slow
}
