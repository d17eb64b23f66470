package cmd

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/report"
)

// --threshold judges the run's figures like a scenario file's thresholds:
// exit 4 when one fails and every invariant holds, while a violated
// invariant still exits 1.
func TestBenchThresholdsDecideTheExitStatus(t *testing.T) {
	hist := filepath.Join(t.TempDir(), "h.jsonl")
	small := []string{"bench", "--quiet", "--kafka", "off", "--ops", "1500", "--duration", "0", "--writers", "3", "--chats", "3", "--history", hist}
	bench := func(args ...string) (int, string, string) {
		return run(t, append(append([]string{}, small...), args...)...)
	}

	code, out, errOut := bench("--threshold", "allocate.p99 < 1h", "--threshold", "persist_ok >= 1000")
	if code != ExitOK || !strings.Contains(out, "thresholds: PASS (2)") {
		t.Fatalf("thresholds that hold: exit %d, want 0\n%s%s", code, out, errOut)
	}

	code, out, errOut = bench("--threshold", "allocate.p99 < 1h", "--threshold", "throughput > 1e12", "--format", "json")
	if code != ExitThresholds {
		t.Fatalf("a threshold that fails: exit %d, want %d\n%s%s", code, ExitThresholds, out, errOut)
	}
	var rep struct {
		Check      struct{ Valid *bool }
		Thresholds []struct {
			Threshold string
			OK        bool
			Value     float64
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Check.Valid == nil || !*rep.Check.Valid || len(rep.Thresholds) != 2 ||
		!rep.Thresholds[0].OK || rep.Thresholds[1].OK || rep.Thresholds[1].Value <= 0 {
		t.Fatalf("JSON report: %+v; want the invariants valid, the first threshold held, the second failed with the measured throughput", rep)
	}

	code, out, errOut = bench("--broken", "racy-counter", "--threshold", "throughput > 1e12")
	if code != ExitViolation || !strings.Contains(out, "thresholds: FAIL (1 of 1)") {
		t.Fatalf("a broken counter and a failed threshold: exit %d, want %d (the violation wins)\n%s%s", code, ExitViolation, out, errOut)
	}
}

func TestWorseExitRanksViolationsOverUnknownOverThresholds(t *testing.T) {
	order := []int{ExitOK, ExitThresholds, ExitUnknown, ExitInterruptedRun, ExitViolation}
	for i, a := range order {
		for j, b := range order {
			if got, want := worseExit(a, b), order[max(i, j)]; got != want {
				t.Errorf("worseExit(%d, %d) = %d, want %d", a, b, got, want)
			}
		}
	}
}

// A run whose writers were interrupted exits ExitInterruptedRun whatever
// its verdict or thresholds, unless an invariant failed.
func TestBenchExitOfAnInterruptedRun(t *testing.T) {
	yes, no := true, false
	failed := []report.ThresholdResult{{Expr: "throughput > 1e12"}}
	for _, c := range []struct {
		name        string
		valid       *bool
		thresholds  []report.ThresholdResult
		interrupted bool
		want        int
	}{
		{"valid", &yes, nil, false, ExitOK},
		{"valid, interrupted", &yes, nil, true, ExitInterruptedRun},
		{"unknown, interrupted", nil, nil, true, ExitInterruptedRun},
		{"threshold failed, interrupted", &yes, failed, true, ExitInterruptedRun},
		{"violation, interrupted", &no, failed, true, ExitViolation},
		{"violation", &no, nil, false, ExitViolation},
		{"unknown", nil, failed, false, ExitUnknown},
		{"threshold failed", &yes, failed, false, ExitThresholds},
	} {
		b := report.Bench{Check: checker.Report{Valid: c.valid}, Thresholds: c.thresholds}
		b.Run.Interrupted = c.interrupted
		if got := benchExit(b); got != c.want {
			t.Errorf("%s: exit %d, want %d", c.name, got, c.want)
		}
	}
	for _, code := range []int{ExitOK, ExitViolation, ExitBadInput, ExitUnknown, ExitThresholds, ExitRunError, ExitInterrupted} {
		if code == ExitInterruptedRun {
			t.Errorf("ExitInterruptedRun %d clashes with another exit status", code)
		}
	}
}
