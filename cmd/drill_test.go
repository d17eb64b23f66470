package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// chatseq runs the command line in-process: exit code, stdout, stderr.
func chatseq(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Execute(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// drillJSON is the part of a drill's JSON report the tests read.
type drillJSON struct {
	Drill        string `json:"drill"`
	Passed       bool   `json:"passed"`
	History      string `json:"history"`
	MaxPersisted uint64 `json:"max_persisted"`
	VerifySeq    uint64 `json:"verify_seq"`
	Timeline     struct {
		CounterDeleted      int64 `json:"counter_deleted_ns"`
		FirstCounterMissing int64 `json:"first_counter_missing_ns"`
		RecoveryWritten     int64 `json:"recovery_written_ns"`
		FirstSuccess        int64 `json:"first_success_ns"`
	} `json:"timeline"`
	TimeToDetectMS  *float64 `json:"time_to_detect_ms"`
	TimeToRecoverMS *float64 `json:"time_to_recover_ms"`
	Check           struct {
		Invariants []struct{ Name, Status string } `json:"invariants"`
	} `json:"check"`
}

func TestDrillCounterRecoveryOnTheEmbeddedStore(t *testing.T) {
	dir := t.TempDir()
	hist := filepath.Join(dir, "d.jsonl")
	code, out, errOut := chatseq(t, "drill", "counter-recovery", "--warmup", "50", "--after", "50", "--format", "json", "--history", hist)
	if code != ExitOK {
		t.Fatalf("exit %d, stderr %s, stdout %s", code, errOut, out)
	}
	var d drillJSON
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if !d.Passed || d.VerifySeq != d.MaxPersisted+1 || d.History != hist {
		t.Errorf("report %+v", d)
	}
	tl := d.Timeline
	if !(tl.CounterDeleted < tl.FirstCounterMissing && tl.FirstCounterMissing < tl.RecoveryWritten && tl.RecoveryWritten < tl.FirstSuccess) {
		t.Errorf("timeline out of order: %+v", tl)
	}
	if d.TimeToDetectMS == nil || d.TimeToRecoverMS == nil || *d.TimeToRecoverMS < *d.TimeToDetectMS {
		t.Errorf("time to detect %v, to recover %v", d.TimeToDetectMS, d.TimeToRecoverMS)
	}
	if len(d.Check.Invariants) == 0 {
		t.Error("no invariants in the report")
	}
	if fi, err := os.Stat(hist); err != nil || fi.Size() == 0 {
		t.Errorf("history %s not written: %v", hist, err)
	}
	// The same drill as text names the timeline and the verdict.
	code, out, _ = chatseq(t, "drill", "counter-recovery", "--warmup", "30", "--after", "30", "--history", filepath.Join(dir, "t.jsonl"))
	for _, want := range []string{"counter deleted", "first counter_missing", "recovery written", "first success", "time to detect", "drill verdict: PASS"} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
	if code != ExitOK {
		t.Errorf("text run exit %d", code)
	}
}

func TestDrillUnsafeRecoveryCatchesEachCase(t *testing.T) {
	hist := filepath.Join(t.TempDir(), "u.jsonl")
	code, out, errOut := chatseq(t, "drill", "unsafe-recovery", "--warmup", "40", "--after", "40", "--format", "json", "--history", hist)
	if code != ExitOK {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	var d struct {
		Passed bool        `json:"passed"`
		Cases  []drillJSON `json:"cases"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	if !d.Passed || len(d.Cases) != 2 {
		t.Fatalf("passed %v with %d cases", d.Passed, len(d.Cases))
	}
	for _, c := range d.Cases {
		failed := map[string]bool{}
		for _, inv := range c.Check.Invariants {
			failed[inv.Name] = inv.Status == "fail"
		}
		if !c.Passed || !failed["sequence_uniqueness"] || !failed["ack_implies_persistence"] {
			t.Errorf("%s: passed %v, failing invariants %v", c.Drill, c.Passed, failed)
		}
		if _, err := os.Stat(c.History); err != nil || !strings.Contains(c.History, strings.TrimPrefix(c.Drill, "unsafe-recovery/")) {
			t.Errorf("%s: history %q: %v", c.Drill, c.History, err)
		}
	}
}

func TestDrillBadFlagsExitTwo(t *testing.T) {
	hist := filepath.Join(t.TempDir(), "h.jsonl")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"drill"}, "name a drill"},
		{[]string{"drill", "counter-recovery", "--format", "xml", "--history", hist}, "--format"},
		{[]string{"drill", "counter-recovery", "--writers", "0", "--history", hist}, "--writers"},
		{[]string{"drill", "counter-recovery", "--strategy", "occ", "--orphans", "1", "--history", hist}, "--orphans needs --strategy two-phase"},
		{[]string{"drill", "counter-recovery", "--orphans", "5", "--after", "5", "--history", hist}, "--after"},
		{[]string{"drill", "counter-recovery", "--store", "sqlite", "--history", hist}, "--store"},
		{[]string{"drill", "unsafe-recovery", "--case", "nope", "--history", hist}, "--case"},
		{[]string{"drill", "unsafe-recovery", "--case", "racing-writer", "--strategy", "occ", "--history", hist}, "needs --strategy two-phase"},
		{[]string{"drill", "counter-recovery", "--bogus"}, "unknown flag"},
	}
	for _, c := range cases {
		code, _, errOut := chatseq(t, c.args...)
		if code != ExitBadInput || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %q", c.args, code, errOut, c.want)
		}
	}
	if _, err := os.Stat(hist); err == nil {
		t.Error("a rejected drill wrote a history")
	}
}
