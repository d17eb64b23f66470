package cmd

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// What a service answered reaches the terminal as text, never as its
// commands: a message id holding a screen-clearing escape and a newline
// followed by "verdict: PASS" printed both raw in the linearizability
// detail, so that a CI job reading the output's verdict line saw PASS
// first (the run exits 1). Found by an outside walk-through.
func TestAServicesStringsCannotForgeAVerdictLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	lines := []string{
		`{"format":"chatseq-history","version":1}`,
		`{"type":"invoke","process":1,"f":"persist","time":1,"chat":"c1","key":"k1"}`,
		`{"type":"ok","process":1,"f":"persist","time":2,"seq":1,"message_id":"m\u001b[2J\nverdict: PASS\u009b","dedup":true}`,
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, "check", path)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a replay of a key nothing committed)\n%s%s", code, out, errOut)
	}
	if strings.ContainsAny(out, "\x1b\u009b") {
		t.Fatalf("a raw escape reached standard output:\n%q", out)
	}
	if regexp.MustCompile(`(?m)^verdict: PASS`).MatchString(out) {
		t.Fatalf("a service's id printed a verdict line of its own:\n%s", out)
	}
	if !strings.Contains(out, `\u001b[2J`) && !strings.Contains(out, `\x1b[2J`) {
		t.Fatalf("the id is not shown escaped:\n%s", out)
	}
}
