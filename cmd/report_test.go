package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/internal/evidence"
	"github.com/chatseq/chatseq/report"
)

// benchOut runs a short bench into a fresh results directory and returns
// it with what the run printed.
func benchOut(t *testing.T, extra ...string) (dir, stdout, stderr string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "run")
	args := append([]string{"bench", "--ops", "400", "--duration", "0", "--writers", "3", "--chats", "2", "--kafka", "off", "--out", dir}, extra...)
	code, out, errOut := run(t, args...)
	if code != ExitOK {
		t.Fatalf("bench exit %d\n%s\n%s", code, out, errOut)
	}
	return dir, out, errOut
}

// copyRun copies a results directory, changing results.json with edit.
func copyRun(t *testing.T, from string, edit func(map[string]any)) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), "copy")
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{report.ResultsFile, report.HistoryFile, report.HlogFile} {
		data, err := os.ReadFile(filepath.Join(from, name))
		if err != nil {
			t.Fatal(err)
		}
		if name == report.ResultsFile && edit != nil {
			var doc map[string]any
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			edit(doc)
			if data, err = json.Marshal(doc); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(to, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return to
}

// --out keeps the run's files, progress goes to stderr and not into the
// JSON on stdout, and `chatseq report` redraws the page.
func TestBenchOutKeepsAResultsDirectory(t *testing.T) {
	dir, out, errOut := benchOut(t, "--format", "json")
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("stdout is not one JSON document (progress mixed in?): %v\n%s", err, out)
	}
	for _, name := range []string{report.ResultsFile, report.HistoryFile, report.HlogFile, report.ReportFile} {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty: %v", name, err)
		}
	}
	if !strings.Contains(errOut, "progress: ") || !strings.Contains(errOut, "writers done") {
		t.Errorf("stderr has no plain progress line:\n%s", errOut)
	}
	if !strings.Contains(errOut, "results: "+filepath.Join(dir, report.ReportFile)) {
		t.Errorf("stderr does not name the report:\n%s", errOut)
	}

	before, _ := os.ReadFile(filepath.Join(dir, report.ReportFile))
	code, out, errOut := run(t, "report", dir)
	if code != ExitOK || strings.TrimSpace(out) != filepath.Join(dir, report.ReportFile) {
		t.Fatalf("report exit %d\n%s\n%s", code, out, errOut)
	}
	after, _ := os.ReadFile(filepath.Join(dir, report.ReportFile))
	if len(after) == 0 || strings.Count(string(after), "\n") != strings.Count(string(before), "\n") {
		t.Errorf("redrawn report has %d lines, the original %d", strings.Count(string(after), "\n"), strings.Count(string(before), "\n"))
	}
}

func TestBenchQuietPrintsNoProgress(t *testing.T) {
	_, _, errOut := benchOut(t, "--quiet")
	if errOut != "" {
		t.Fatalf("--quiet wrote to stderr:\n%s", errOut)
	}
}

// sameCommand is the bench command the compare tests run twice: open
// loop, so that throughput is the schedule's and not the machine's, which
// other processes share. Eight writers keep the rate against a store
// slowed by a millisecond a call on a busy machine too (a send makes
// several calls, each slept longer than asked there): two fell to a few
// operations an interval, too few for compare to estimate a median.
var sameCommand = []string{"bench", "--duration", "2s", "--rate", "400", "--writers", "8", "--chats", "8", "--kafka", "off", "--quiet"}

func benchInto(t *testing.T, dir string, extra ...string) {
	t.Helper()
	args := append(append(slices.Clone(sameCommand), "--out", dir), extra...)
	if code, out, errOut := run(t, args...); code != ExitOK {
		t.Fatalf("%v: exit %d\n%s\n%s", args, code, out, errOut)
	}
}

// Two runs of one command are no regression; the same command against a
// store slowed by a millisecond a call is, verdict first; runs made with
// other faults are refused unless asked; per-target directories are
// compared target by target.
//
// One run a side cannot tell the code from the machine (compare says so):
// a machine busy with other jobs can make one run's open loop fall behind
// its rate, or starve a run of the operations a percentile needs. Such
// runs are not evidence either way, and are run again (internal/evidence);
// a regression between runs that kept their rate, or none where the slowed
// store's rows could be tested, fails at once.
func TestCompareTwoRunsOfOneCommandAndARealRegression(t *testing.T) {
	root := t.TempDir()
	var a, slower string
	evidence.Rerun(t, evidence.Default, func(n int) string {
		dir := filepath.Join(root, strconv.Itoa(n))
		var b, slow string
		a, b, slow = filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "slow")
		benchInto(t, a)
		benchInto(t, b)
		benchInto(t, slow, "--schedule", "{fault: store_latency, at: 0s, for: 10s, latency: 1ms}")

		code, out, errOut := run(t, "compare", a, b)
		if code == ExitUnknown && strings.HasPrefix(out, "verdict: UNKNOWN") {
			return "two runs of one command too thin to test: " + strings.SplitN(out, "\n", 2)[0]
		}
		if code != ExitOK || !strings.HasPrefix(out, "verdict: no regression") || strings.Contains(out, "REGRESSION") {
			if excuse := lateRegression(t, a, b); excuse != "" {
				return "two runs of one command compared as a regression, " + excuse
			}
			t.Fatalf("two runs of one command: exit %d, want 0 and no regression\n%s\n%s", code, out, errOut)
		}

		code, _, errOut = run(t, "compare", a, slow)
		if code != ExitBadInput || !strings.Contains(errOut, "were not run alike") || !strings.Contains(errOut, "timed faults: none in A, store-latency 0-10s +1ms in B") {
			t.Fatalf("other timed faults: exit %d, want 2 naming them\n%s", code, errOut)
		}
		code, out, _ = run(t, "compare", a, slow, "--allow-different-settings")
		if code != ExitViolation || !strings.HasPrefix(out, "verdict: REGRESSION") || !strings.Contains(out, "WARNING: THE RUNS WERE NOT RUN ALIKE") {
			if untested := untestedRows(t, a, slow, "--allow-different-settings"); untested != "" {
				return "against the slowed store: " + untested
			}
			t.Fatalf("--allow-different-settings: exit %d, want 1 under a warning\n%s", code, out)
		}
		// The slow store as a change of the code: the same settings.
		slower = copyRun(t, slow, func(doc map[string]any) { doc["timed_faults"] = []any{} })
		code, out, _ = run(t, "compare", a, slower, "--format", "json")
		var cmp report.Comparison
		if err := json.Unmarshal([]byte(out), &cmp); err != nil || code != ExitViolation || cmp.Verdict != report.VerdictRegression {
			if untested := untestedRows(t, a, slower); err == nil && untested != "" {
				return "against the slowed store's copy: " + untested
			}
			t.Fatalf("a store slowed by 1ms a call: exit %d, %v, want 1 and a regression\n%s", code, err, out)
		}
		flagged := map[string]bool{}
		for _, r := range cmp.Targets[0].Rows {
			if r.Regression {
				flagged[r.Step+" "+r.Metric] = true
				worse := r.Ratio != nil && (*r.Ratio > 1.1 || r.Metric == report.MetricThroughput && *r.Ratio < 0.9)
				if !worse || r.P == nil || *r.P >= 0.05 {
					t.Errorf("%s %s flagged with ratio %s, p %v", r.Step, r.Metric, report.FormatRatio(r.Ratio), r.P)
				}
			}
		}
		if !flagged["persist p50"] || !flagged["end_to_end p50"] {
			if untested := untestedRows(t, a, slower); untested != "" {
				return "against the slowed store's copy: " + untested
			}
			// end_to_end counts from the intended start: a run that fell
			// behind its rate adds its lateness to every send.
			if slipped := fellBehind(t, a, slow); flagged["persist p50"] && slipped != "" {
				return fmt.Sprintf("end_to_end p50 not flagged against the slowed store (flagged %v), but %s", flagged, slipped)
			}
			t.Errorf("flagged %v, want persist p50 and end_to_end p50 among them", flagged)
		}
		if code, _, _ = run(t, "compare", a, slower, "--metrics", "gap_rate,verdict"); code != ExitOK {
			t.Errorf("latency unchecked: exit %d, want 0", code)
		}
		return ""
	})

	// A directory of per-target runs compares target by target.
	multiA, multiB := t.TempDir(), t.TempDir()
	for _, d := range []struct{ root, from string }{{multiA, a}, {multiB, slower}} {
		for _, target := range []string{"memory", "other"} {
			src := copyRun(t, d.from, func(doc map[string]any) {
				doc["run"].(map[string]any)["target"] = target
				doc["timed_faults"] = []any{}
			})
			if err := os.Rename(src, filepath.Join(d.root, target)); err != nil {
				t.Fatal(err)
			}
		}
	}
	code, out, errOut := run(t, "compare", multiA, multiB)
	if code != ExitViolation || !strings.Contains(out, "target memory") || !strings.Contains(out, "target other") {
		t.Fatalf("per-target directories: exit %d\n%s\n%s", code, out, errOut)
	}
	// Not written by one bench --out (no index.html beside them), the
	// runs are redrawn only when --all asks.
	code, _, errOut = run(t, "report", multiA)
	if code != ExitBadInput || !strings.Contains(errOut, "its subdirectories memory, other are runs of their own; give one of them, or --all") {
		t.Fatalf("report of a directory of runs: exit %d, want 2 naming them\n%s", code, errOut)
	}
	code, out, _ = run(t, "report", multiA, "--all")
	if code != ExitOK || strings.Count(out, report.ReportFile) != 2 {
		t.Fatalf("report --all of per-target directories: exit %d\n%s", code, out)
	}
	// One bench --out's several targets are redrawn together.
	if err := os.WriteFile(filepath.Join(multiB, report.IndexFile), []byte("<html></html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = run(t, "report", multiB)
	if code != ExitOK || strings.Count(out, report.ReportFile) != 2 {
		t.Fatalf("report of one run's per-target directories: exit %d\n%s", code, out)
	}
}

// closedLoopCommand is a closed loop: its throughput is what the machine
// gives it, which on a shared machine moves by half from run to run.
var closedLoopCommand = []string{"bench", "--duration", "1s", "--kafka", "off", "--quiet"}

func closedLoopRun(t *testing.T, dir string, extra ...string) {
	t.Helper()
	args := append(append(slices.Clone(closedLoopCommand), "--out", dir), extra...)
	if code, out, errOut := run(t, args...); code != ExitOK {
		t.Fatalf("%v: exit %d\n%s\n%s", args, code, out, errOut)
	}
}

func derefOr(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// Three closed-loop runs of one command a side are no regression, however
// the machine's load moved each run; three of the same command against a
// store slowed by a millisecond a call are. Runs pooled on a side must be
// runs of one command. Both comparisons use --alpha 0.01, so that two sets
// of one command fail by chance about once in two hundred runs of the
// test rather than once in forty, and each is judged on figures no load
// can flip. The runs of one command allow a change of half (--tolerance
// 50%) and a latency rise of 20 ms (--min-change): interleaved, their
// pooled figures move by less on a machine shared with other jobs. The
// slowed store is judged on the median allocate and persist latency, which
// its millisecond a call takes from tens of nanoseconds to a millisecond
// and more; a closed loop's throughput, which load moves by half from run
// to run, gave it a p runs of 0.018 beside two busy loops.
func TestCompareSeveralClosedLoopRunsASide(t *testing.T) {
	root := t.TempDir()
	var a, b, slow []string
	for i := range 3 { // interleaved, so a drift of the machine's load weighs on both sides
		for _, side := range []*[]string{&a, &b} {
			dir := filepath.Join(root, fmt.Sprintf("run%d-%d", len(a)+len(b), i))
			closedLoopRun(t, dir)
			*side = append(*side, dir)
		}
		dir := filepath.Join(root, fmt.Sprintf("slow%d", i))
		closedLoopRun(t, dir, "--schedule", "{fault: store_latency, at: 0s, for: 10s, latency: 1ms}")
		// The slow store as a change of the code: the same settings.
		slow = append(slow, copyRun(t, dir, func(doc map[string]any) { doc["timed_faults"] = []any{} }))
	}

	margins := []string{"--alpha", "0.01", "--tolerance", "50%", "--min-change", "20ms"}
	args := append(append(append([]string{"compare"}, a...), "--vs"), b...)
	code, out, errOut := run(t, append(args, margins...)...)
	t.Logf("three runs of one command a side:\n%s", out)
	if code != ExitOK || !strings.HasPrefix(out, "verdict: no regression") || !strings.Contains(out, "pooled over 3 runs A, 3 runs B") || !strings.Contains(out, "p runs") {
		t.Fatalf("three runs of one command a side: exit %d, want 0, no regression, pooled over 3 runs a side\n%s\n%s", code, out, errOut)
	}

	args = append(append(append([]string{"compare"}, a...), "--vs"), slow...)
	code, out, errOut = run(t, append(args, "--alpha", "0.01", "--tolerance", "50%", "--min-change", "500us",
		"--metrics", "p50", "--steps", "allocate,persist", "--format", "json")...)
	var cmp report.Comparison
	if err := json.Unmarshal([]byte(out), &cmp); err != nil || code != ExitViolation || cmp.Verdict != report.VerdictRegression {
		t.Fatalf("against a store slowed by 1ms a call: exit %d, %v, want 1 and a regression\n%s\n%s", code, err, out, errOut)
	}
	if !slices.Equal(cmp.A, a) || !slices.Equal(cmp.B, slow) || cmp.Targets[0].RunsA != 3 || cmp.Targets[0].RunsB != 3 {
		t.Fatalf("sides %v and %v with %d and %d runs; want the paths as given, 3 runs each", cmp.A, cmp.B, cmp.Targets[0].RunsA, cmp.Targets[0].RunsB)
	}
	flagged := 0
	for _, r := range cmp.Targets[0].Rows {
		if r.Metric != "p50" || (r.Step != "allocate" && r.Step != "persist") {
			continue
		}
		if !r.Regression || r.PRuns == nil || *r.PRuns >= 0.01 {
			t.Fatalf("%s p50 %+v (p runs %v), want a regression with the runs' p below 0.01", r.Step, r, derefOr(r.PRuns))
		}
		flagged++
	}
	if flagged != 2 {
		t.Fatalf("%d of allocate and persist p50 compared, want both", flagged)
	}

	// A side pools runs of one command only.
	other := copyRun(t, b[0], func(doc map[string]any) { doc["config"].(map[string]any)["writers"] = 16 })
	code, _, errOut = run(t, "compare", a[0], a[1], "--vs", b[1], other)
	if code != ExitBadInput || !strings.Contains(errOut, "are on one side but were not run alike") || !strings.Contains(errOut, "writers: 8 in "+b[1]+", 16 in "+other) {
		t.Fatalf("a side of two commands: exit %d, want 2 naming the writers\n%s", code, errOut)
	}
}

func TestReportAndCompareRefuseBadInput(t *testing.T) {
	a, _, _ := benchOut(t, "--quiet")
	future := copyRun(t, a, func(doc map[string]any) { doc["schema_version"] = 99 })
	empty := t.TempDir()
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	noHlog := copyRun(t, a, nil)
	if err := os.Remove(filepath.Join(noHlog, report.HlogFile)); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"report"}, "accepts 1 arg"},
		{[]string{"report", "/no/such/dir"}, "no such file"},
		{[]string{"report", empty}, "has no results.json"},
		{[]string{"report", future}, "schema_version 99"},
		{[]string{"report", noHlog}, report.HlogFile},
		{[]string{"compare", a}, "compare takes two runs, A B, or several a side, A1 A2 … --vs B1 B2 …; got 1 argument"},
		{[]string{"compare", a, a, a}, "got 3 arguments"},
		{[]string{"compare", "--vs", a, a}, "--vs follows the baseline's runs"},
		{[]string{"compare", a, "--vs", a, "--vs", a}, "given twice"},
		{[]string{"compare", a, "--vs", a, "/no/such/dir"}, "no such file"},
		{[]string{"compare", a, "/no/such/dir"}, "no such file"},
		{[]string{"compare", a, file}, "not a chatseq results file"},
		{[]string{"compare", a, future}, "schema_version 99"},
		{[]string{"compare", a, a, "--tolerance", "lots"}, "--tolerance must be"},
		{[]string{"compare", a, a, "--tolerance", "-5%"}, "--tolerance must be"},
		{[]string{"compare", a, a, "--metrics", "p98"}, `unknown name "p98"`},
		{[]string{"compare", a, a, "--metrics", "p99.9"}, "p99.9 is not compared: the run's single p99.9 is one operation's latency"},
		{[]string{"compare", a, a, "--alpha", "0"}, "--alpha must be between 0 and 1"},
		{[]string{"compare", a, a, "--min-change", "-1ms"}, "--min-change must not be negative"},
		{[]string{"compare", a, a, "--steps", "commit"}, `unknown name "commit"`},
		{[]string{"compare", a, a, "--format", "xml"}, "--format must be"},
		{[]string{"bench", "--out", empty, "--history", "h.jsonl"}, "give --out or --history"},
		{[]string{"bench", "--out", file}, "is a file"},
	}
	for _, c := range cases {
		code, _, errOut := run(t, c.args...)
		if code != ExitBadInput || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %q", c.args, code, errOut, c.want)
		}
	}
}

// fellBehind says which of the open-loop runs in dirs did not keep their
// rate (their results.json's schedule warns so), "" when all did: a
// machine busy with other jobs, not the code, made them differ.
func fellBehind(t *testing.T, dirs ...string) string {
	t.Helper()
	var behind []string
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, report.ResultsFile))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Schedule *report.Schedule `json:"schedule"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		if doc.Schedule == nil {
			t.Fatalf("%s: no schedule in an open-loop run's results", dir)
		}
		if doc.Schedule.Warning != "" {
			behind = append(behind, fmt.Sprintf("%s fell behind its rate (%d of %d starts late, %d never made)",
				filepath.Base(dir), doc.Schedule.LateStarts, doc.Schedule.Started, doc.Schedule.Unsent))
		}
	}
	return strings.Join(behind, "; ")
}

// lateRegression explains a regression compare found between a and b by
// their schedules, or returns "": when one of the open-loop runs fell
// behind its rate and every row flagged is one lateness moves (throughput,
// end_to_end, which counts from the intended start). A row measured from
// the send (allocate, persist, service, sync) is never excused.
func lateRegression(t *testing.T, a, b string) string {
	t.Helper()
	slipped := fellBehind(t, a, b)
	if slipped == "" {
		return ""
	}
	code, out, errOut := run(t, "compare", a, b, "--format", "json")
	var cmp report.Comparison
	if err := json.Unmarshal([]byte(out), &cmp); err != nil {
		t.Fatalf("compare --format json: exit %d, %v\n%s\n%s", code, err, out, errOut)
	}
	var flagged []string
	for _, tc := range cmp.Targets {
		for _, r := range tc.Rows {
			if !r.Regression {
				continue
			}
			if r.Metric != report.MetricThroughput && r.Step != "end_to_end" {
				return ""
			}
			flagged = append(flagged, strings.TrimSpace(r.Step+" "+r.Metric))
		}
	}
	if len(flagged) == 0 {
		return ""
	}
	return fmt.Sprintf("in %s only, but %s", strings.Join(flagged, ", "), slipped)
}

// slowedRows are the rows a store slowed by a millisecond a call must
// regress, when compare has the samples to test them.
var slowedRows = []string{"persist p50", "end_to_end p50"}

// untestedRows names the slowedRows compare could not test between a and
// b (no p: too few operations an interval, a starved run), "" when it
// tested them all.
func untestedRows(t *testing.T, a, b string, extra ...string) string {
	t.Helper()
	code, out, errOut := run(t, append([]string{"compare", a, b, "--format", "json"}, extra...)...)
	var cmp report.Comparison
	if err := json.Unmarshal([]byte(out), &cmp); err != nil || len(cmp.Targets) == 0 {
		t.Fatalf("compare --format json: exit %d, %v\n%s\n%s", code, err, out, errOut)
	}
	var untested []string
	for _, r := range cmp.Targets[0].Rows {
		if slices.Contains(slowedRows, r.Step+" "+r.Metric) && r.P == nil {
			untested = append(untested, fmt.Sprintf("%s %s untested: %s", r.Step, r.Metric, r.Note))
		}
	}
	return strings.Join(untested, "; ")
}

// Two runs of ten operations each fit in an interval or two: no row can
// be tested, and compare says it cannot decide (exit 3), naming why,
// rather than "no regression".
func TestCompareOfRunsTooShortToTestIsUndecided(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	for _, dir := range []string{a, b} {
		if code, out, errOut := run(t, "bench", "--ops", "10", "--writers", "1", "--kafka", "off", "--quiet", "--out", dir); code != ExitOK {
			t.Fatalf("bench: exit %d\n%s\n%s", code, out, errOut)
		}
	}
	code, out, errOut := run(t, "compare", a, b)
	if code != ExitUnknown || !strings.HasPrefix(out, "verdict: UNKNOWN: cannot tell whether B regressed: none of the") ||
		!strings.Contains(out, "throughput") || strings.Contains(out, "no regression") {
		t.Fatalf("exit %d, want 3 and an unknown verdict naming the untested rows\n%s\n%s", code, out, errOut)
	}
}

// A comparison that could test only some rows says so: a run against a
// copy of itself whose sync step is gone (B made no syncs) is no
// regression in the rows tested, the sync rows named untested (exit 0);
// --require-tested makes them UNKNOWN (exit 3), and --metrics narrowing
// the check to rows both sides have decides it again.
func TestComparePartlyTestedNamesTheUntestedRowsAndRequireTestedRefuses(t *testing.T) {
	a := filepath.Join(t.TempDir(), "a")
	benchInto(t, a)
	noSync := copyRun(t, a, func(doc map[string]any) {
		var latency []any
		for _, p := range doc["latency"].([]any) {
			if p.(map[string]any)["step"] != "sync" {
				latency = append(latency, p)
			}
		}
		doc["latency"] = latency
		for _, iv := range doc["intervals"].([]any) {
			if l, ok := iv.(map[string]any)["latency"].(map[string]any); ok {
				delete(l, "sync")
			}
		}
	})
	code, out, errOut := run(t, "compare", a, noSync)
	lines := strings.SplitN(out, "\n", 3)
	if code != ExitOK || !strings.HasPrefix(lines[0], "verdict: no regression in the ") || !strings.Contains(lines[0], " rows of figures untested") ||
		!strings.Contains(lines[1], "sync p50, sync p90, sync p99: no sync operations in B: nothing to compare") {
		t.Fatalf("exit %d, want 0 and the sync rows named untested\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = run(t, "compare", a, noSync, "--require-tested", "--format", "json")
	var cmp report.Comparison
	if err := json.Unmarshal([]byte(out), &cmp); err != nil || code != ExitUnknown || cmp.Verdict != report.VerdictUnknown || !cmp.RequireTested ||
		!strings.Contains(cmp.Undecided, "--require-tested asks for every one") || !slices.ContainsFunc(cmp.Untested, func(u report.UntestedRow) bool { return u.Row == "sync p99" }) {
		t.Fatalf("--require-tested: exit %d, %v, want 3 and an unknown verdict naming sync p99\n%s\n%s", code, err, out, errOut)
	}
	if code, out, errOut = run(t, "compare", a, noSync, "--require-tested", "--metrics", "throughput,verdict"); code != ExitOK || !strings.HasPrefix(out, "verdict: no regression in 2 checked rows") {
		t.Fatalf("--require-tested --metrics throughput,verdict: exit %d, want 0\n%s\n%s", code, out, errOut)
	}
}
