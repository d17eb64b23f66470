package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

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

// scaleP99 multiplies a step's p99 in a results.json document.
func scaleP99(step string, by float64) func(map[string]any) {
	return func(doc map[string]any) {
		for _, l := range doc["latency"].([]any) {
			p := l.(map[string]any)
			if p["step"] == step {
				p["p99_ms"] = p["p99_ms"].(float64) * by
			}
		}
	}
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

// compare exits 0 within the tolerance and 1 beyond it, so CI can fail a
// build on a p99 regression.
func TestCompareExitsOneOnARegression(t *testing.T) {
	a, _, _ := benchOut(t, "--quiet")
	code, out, _ := run(t, "compare", a, a)
	if code != ExitOK || !strings.Contains(out, "no regression beyond 10%") {
		t.Fatalf("a run against itself: exit %d\n%s", code, out)
	}
	slower := copyRun(t, a, scaleP99("end_to_end", 2))
	code, out, _ = run(t, "compare", a, slower, "--tolerance", "10%")
	if code != ExitViolation || !strings.Contains(out, "REGRESSION") || !strings.Contains(out, "end_to_end p99") {
		t.Fatalf("p99 doubled: exit %d, want 1\n%s", code, out)
	}
	code, out, _ = run(t, "compare", a, slower, "--tolerance", "150")
	if code != ExitOK {
		t.Fatalf("p99 doubled within 150%%: exit %d, want 0\n%s", code, out)
	}
	code, out, _ = run(t, "compare", a, slower, "--metrics", "throughput,p50", "--format", "json")
	var cmp struct {
		Regressions int `json:"regressions"`
		Targets     []struct {
			Rows []struct{ Metric, Step string }
		} `json:"targets"`
	}
	if err := json.Unmarshal([]byte(out), &cmp); err != nil || code != ExitOK || cmp.Regressions != 0 || len(cmp.Targets) != 1 {
		t.Fatalf("p99 unchecked: exit %d, %+v, %v\n%s", code, cmp, err, out)
	}
	// A directory of per-target runs compares target by target.
	multiA, multiB := t.TempDir(), t.TempDir()
	for _, d := range []struct{ root, from string }{{multiA, a}, {multiB, slower}} {
		for _, target := range []string{"memory", "other"} {
			src := copyRun(t, d.from, func(doc map[string]any) { doc["run"].(map[string]any)["target"] = target })
			if err := os.Rename(src, filepath.Join(d.root, target)); err != nil {
				t.Fatal(err)
			}
		}
	}
	code, out, _ = run(t, "compare", multiA, multiB)
	if code != ExitViolation || !strings.Contains(out, "target memory") || !strings.Contains(out, "target other") || !strings.Contains(out, "2 regressions") {
		t.Fatalf("per-target directories: exit %d\n%s", code, out)
	}
	code, out, _ = run(t, "report", multiA)
	if code != ExitOK || strings.Count(out, report.ReportFile) != 2 {
		t.Fatalf("report of per-target directories: exit %d\n%s", code, out)
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
		{[]string{"compare", a}, "accepts 2 arg"},
		{[]string{"compare", a, "/no/such/dir"}, "no such file"},
		{[]string{"compare", a, file}, "not a chatseq results file"},
		{[]string{"compare", a, future}, "schema_version 99"},
		{[]string{"compare", a, a, "--tolerance", "lots"}, "--tolerance must be"},
		{[]string{"compare", a, a, "--tolerance", "-5%"}, "--tolerance must be"},
		{[]string{"compare", a, a, "--metrics", "p98"}, `unknown name "p98"`},
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
