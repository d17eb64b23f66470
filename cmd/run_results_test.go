package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/report"
)

// run --out keeps a results directory per scenario, so chatseq report and
// chatseq compare work on a scenario run; a 1 s scenario's charts have
// points to draw a line through, and its results name the command that
// reproduces it.
func TestRunOutKeepsAResultsDirectoryPerScenario(t *testing.T) {
	const name = "one-second"
	scenario := writeScenario(t, t.TempDir(), "one-second.yaml", `name: one-second
writers: 4
chats: 2
duration: 1s
rate: 800
sync_ratio: 0.25
schedule:
  - {fault: store_stall, at: 300ms, for: 200ms}
expect: pass
thresholds:
  - persisted > 0
  - sync_ok > 0
  - errors.counter_missing == 0
`)
	out := t.TempDir()
	if code, stdout, errOut := run(t, "run", scenario, "--out", out); code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, errOut)
	}
	dir := filepath.Join(out, name)
	for _, f := range []string{report.HistoryFile, report.ResultsFile, report.HlogFile, report.ReportFile} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty: %v", f, err)
		}
	}
	r, err := report.ReadResults(filepath.Join(dir, report.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Intervals) < 10 || r.IntervalS != 0.1 {
		t.Errorf("a 1 s scenario has %d intervals of %gs, want at least 10 of 0.1s", len(r.Intervals), r.IntervalS)
	}
	if len(r.Faults) != 1 || r.Faults[0].Kind != "store-stall" {
		t.Errorf("timed faults %+v, want the scenario's store stall", r.Faults)
	}
	if want := "chatseq run " + scenario; r.Command != want {
		t.Errorf("command %q, want %q", r.Command, want)
	}
	if len(r.Thresholds) != 3 {
		t.Errorf("results hold %d thresholds, want the scenario's 3", len(r.Thresholds))
	}
	code, stdout, errOut := run(t, "report", dir)
	if code != ExitOK || strings.TrimSpace(stdout) != filepath.Join(dir, report.ReportFile) {
		t.Fatalf("report: exit %d\n%s\n%s", code, stdout, errOut)
	}
	if code, stdout, errOut = run(t, "compare", dir, dir); code != ExitOK {
		t.Fatalf("compare: exit %d\n%s\n%s", code, stdout, errOut)
	}
}
