package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/report"
)

// --fail-fast stops the writers at the online check's first violation:
// far fewer operations than asked for, exit 1, the violation named, and
// the report's online line is the completion that proved it (an ok
// persist whose sequence an earlier ack of another message holds).
func TestFailFastStopsAtTheFirstViolation(t *testing.T) {
	dir := t.TempDir()
	hist := filepath.Join(dir, "h.jsonl")
	const asked = 400000
	code, stdout, stderr := run(t, "bench", "--broken", "racy-counter", "--fail-fast", "--ops", "400000", "--kafka", "off",
		"--history", hist, "--format", "json")
	if code != ExitViolation {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, ExitViolation, stdout, stderr)
	}
	if !strings.Contains(stderr, "online check: sequence_uniqueness violated at line") {
		t.Errorf("the progress output does not name the violation:\n%s", stderr)
	}
	var b report.Bench
	if err := json.Unmarshal([]byte(stdout), &b); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	if b.Operations >= asked/10 {
		t.Errorf("the writers ran %d of %d operations after the first violation", b.Operations, asked)
	}
	if len(b.Online) == 0 || b.Run.StoppedForViolation == "" {
		t.Fatalf("no online violation in the report: %+v %q", b.Online, b.Run.StoppedForViolation)
	}
	v := b.Online[0]
	h, err := history.ReadFile(hist)
	if err != nil {
		t.Fatal(err)
	}
	byLine := map[int]history.Event{}
	for _, e := range h.Events {
		byLine[e.Line] = e
	}
	proving, earlier := byLine[v.Lines[len(v.Lines)-1]], byLine[v.Lines[0]]
	if proving.Kind != history.KindOK || proving.F != history.FPersist || earlier.Kind != history.KindOK ||
		proving.Seq != earlier.Seq || proving.MessageID == earlier.MessageID {
		t.Errorf("the online counterexample %v is not two acks of one sequence: %+v and %+v", v.Lines, earlier, proving)
	}
	failed := false
	for _, r := range b.Check.Invariants {
		failed = failed || (r.Name == v.Invariant && r.Status == "fail")
	}
	if !failed {
		t.Errorf("the offline check does not confirm %s", v.Invariant)
	}
}

// A variant_on window turns a correct run wrong once it opens: with
// --fail-fast the run stops soon after, its header still the correct
// core's, exit 1. A correct run gives the online check nothing.
func TestVariantWindowTurnsACorrectRunWrong(t *testing.T) {
	dir := t.TempDir()
	const asked = 400000
	code, stdout, stderr := run(t, "bench", "--fail-fast", "--ops", fmt.Sprint(asked), "--kafka", "off", "--history", filepath.Join(dir, "w.jsonl"),
		"--schedule", "{fault: variant_on, at: 0s, for: 1h, variant: unconditional-idempotency}", "--concurrent-duplicate", "0.2", "--format", "json")
	if code != ExitViolation {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, ExitViolation, stdout, stderr)
	}
	var b report.Bench
	if err := json.Unmarshal([]byte(stdout), &b); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	if b.Run.Variant != "correct" && b.Run.Variant != "" {
		t.Errorf("the run's variant is %q, not the correct core's", b.Run.Variant)
	}
	// The window is named beside it, in the report and in the history's
	// header, so that a failure is not read as the correct core's.
	window := "unconditional-idempotency from 0s for 1h0m0s"
	if !slices.Equal(b.Run.VariantWindows, []string{window}) {
		t.Errorf("the report's variant windows are %q, want %q", b.Run.VariantWindows, window)
	}
	if first, err := os.ReadFile(filepath.Join(dir, "w.jsonl")); err != nil {
		t.Fatal(err)
	} else if line, _, _ := strings.Cut(string(first), "\n"); !strings.Contains(line, `"variant_windows":"`+window+`"`) {
		t.Errorf("the history's header does not name the window %q: %s", window, line)
	}
	if len(b.Online) == 0 || b.Online[0].Invariant != "idempotency_guarantee" || b.Operations >= asked/10 {
		t.Errorf("online %+v after %d operations of %d", b.Online, b.Operations, asked)
	}

	code, stdout, stderr = run(t, "bench", "--fail-fast", "--ops", "3000", "--kafka", "off", "--history", filepath.Join(dir, "c.jsonl"), "--concurrent-duplicate", "0.2", "--format", "json")
	if code != ExitOK {
		t.Fatalf("correct run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	b = report.Bench{}
	if err := json.Unmarshal([]byte(stdout), &b); err != nil || len(b.Online) > 0 || b.Operations < 3000 {
		t.Errorf("correct run: online %+v after %d operations (%v)", b.Online, b.Operations, err)
	}
	// It ran and found nothing: an empty list, not a missing key.
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(stdout), &raw); err != nil || string(raw["online"]) != "[]" {
		t.Errorf("correct run: online is %q, want []", raw["online"])
	}
}
