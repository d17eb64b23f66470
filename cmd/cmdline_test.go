package cmd

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/report"
)

// results.json names the command that reproduces the run: every flag
// given, quoted for a shell; a shell gives back the arguments, which run
// the same settings again.
func TestBenchOutRecordsTheCommandThatReproducesIt(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	schedule := "{fault: kafka_outage, at: 100ms, for: 100ms}"
	if code, out, errOut := run(t, "bench", "--ops", "200", "--duration", "0", "--writers", "2", "--chats", "2", "--quiet",
		"--threshold", "allocate.p99 < 1s", "--threshold", "dedup >= 0", "--schedule", schedule, "--out", dir); code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	r, err := report.ReadResults(filepath.Join(dir, report.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	want := "chatseq bench --chats=2 --duration=0s --ops=200 --out=" + dir + " --quiet '--schedule=" + schedule + "' '--threshold=allocate.p99 < 1s' '--threshold=dedup >= 0' --writers=2"
	if r.Command != want {
		t.Fatalf("command\n%q, want\n%q", r.Command, want)
	}
	// A shell splits it back into the arguments, which run the same
	// settings again.
	words, err := exec.Command("sh", "-c", `printf '%s\n' `+strings.TrimPrefix(r.Command, "chatseq ")).Output()
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Split(strings.TrimSuffix(string(words), "\n"), "\n")
	// Into the same --out, which now holds the first run's results: only
	// --force lets it replace them.
	if code, _, errOut := run(t, args...); code != ExitBadInput || !strings.Contains(errOut, "--force") {
		t.Fatalf("the recorded command into its own results: exit %d, want 2 asking for --force\n%s", code, errOut)
	}
	args = append(args, "--force")
	if code, out, errOut := run(t, args...); code != ExitOK {
		t.Fatalf("the recorded command %v: exit %d\n%s\n%s", args, code, out, errOut)
	}
	again, err := report.ReadResults(filepath.Join(dir, report.ResultsFile))
	if err != nil || again.Command != r.Command || len(again.Faults) != 1 || len(again.Thresholds) != 2 || again.Config != r.Config {
		t.Fatalf("the recorded command ran other settings: %v\n%+v\n%+v", err, again.Config, r.Config)
	}
}
