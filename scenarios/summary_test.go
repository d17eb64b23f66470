package scenarios

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/chatseq/chatseq/internal/textwidth"
)

// summaryWithAFailure is a run of two scenarios, one of them failing with
// a long problem, a shrunk run, and overrides that quote a value.
func summaryWithAFailure() *Summary {
	pass := &Outcome{Scenario: &Scenario{Name: "adr004-d1-basic-allocation", File: "scenarios/adr004/d1-basic-allocation.yaml"},
		Verdict: Pass, Figures: Figures{Operations: 1, Persisted: 1, AllocateP99: "502ns", EndToEndP99: "5.81ms"}, Elapsed: 40 * time.Millisecond}
	seed := int64(1234567)
	fail := &Outcome{Scenario: &Scenario{Name: "findings-adr004-catch-up-late-commit", File: "scenarios/findings/adr004-catch-up-late-commit.yaml",
		Expect: Expectation{Violates: []string{"catch_up_completeness"}}},
		Verdict:   Fail,
		Overrides: Overrides{Seed: &seed, Writers: 3, Flags: []string{"--lin-timeout", "10s", "--label", "two words"}},
		Problems:  []string{"expected catch_up_completeness to FAIL, got PASS: 12345 syncs by cursor judged; every message committed below a reader's cursor reached it"},
		History:   "/tmp/chatseq-run-4711/findings-adr004-catch-up-late-commit/history.jsonl", Lines: 98765,
		Figures: Figures{Operations: 40000, Persisted: 39876, AllocateP99: "59.2µs", EndToEndP99: "72.4µs"}, Elapsed: 2500 * time.Millisecond,
		Shrunk: &ShrinkResult{Writers: 2, Ops: 120, Chats: 1, Lines: 345, History: "/tmp/chatseq-shrink-1/history.jsonl", Failing: []string{"catch_up_completeness"}, Runs: 7,
			Overrides: Overrides{Seed: &seed, Writers: 2, Ops: 120, Chats: 1}}}
	fail.Config.Seed = seed
	return &Summary{Outcomes: []*Outcome{pass, fail}, OutDir: "/tmp/chatseq-run-4711", Elapsed: 2600 * time.Millisecond}
}

// The run summary at 60 and 200 columns: no line wider than the terminal
// save a single word (a path), numbers whole, and each reproducing
// command still one shell command, broken only between its words with
// " \" continuations. At 200 columns the table stays a table and the
// text is the unlimited one.
func TestSummaryTextFitsTheTerminal(t *testing.T) {
	s := summaryWithAFailure()
	var full bytes.Buffer
	if err := writeText(&full, s, 0); err != nil {
		t.Fatal(err)
	}
	for _, width := range []int{60, 200} {
		var fitted bytes.Buffer
		if err := writeText(&fitted, s, width); err != nil {
			t.Fatal(err)
		}
		text := fitted.String()
		lines := strings.Split(text, "\n")
		for _, l := range lines {
			if textwidth.Columns(l) > width && len(strings.Fields(l)) > 1 {
				t.Errorf("width %d: a %d-column line %q", width, textwidth.Columns(l), l)
			}
		}
		if width == 200 && text != full.String() {
			t.Errorf("width 200 differs from the unlimited text:\n%s\nnot\n%s", text, full.String())
		}
		words := strings.Join(strings.Fields(text), " ")
		for _, want := range []string{"40000", "39876", "59.2µs", "98765 lines", "12345 syncs", "1 of 2 scenarios passed"} {
			if !strings.Contains(words, want) {
				t.Errorf("width %d: %q is not whole:\n%s", width, want, text)
			}
		}
		for _, c := range []struct{ label, want string }{
			{"reproduce: ", s.Outcomes[1].Repro()},
			{"reproduce the shrunk run: ", Command(s.Outcomes[1].Scenario.File, s.Outcomes[1].Shrunk.Overrides)},
		} {
			if got := commandAfter(lines, c.label); got != c.want {
				t.Errorf("width %d: %s%q, want %q:\n%s", width, c.label, got, c.want, text)
			}
		}
	}
}

// commandAfter reads back the command written after label, on its line
// or from the next, its " \" continuation lines joined.
func commandAfter(lines []string, label string) string {
	label = strings.TrimSpace(label)
	for i, l := range lines {
		at := strings.Index(l, label)
		if at < 0 {
			continue
		}
		cmd := strings.TrimSpace(l[at+len(label):])
		if cmd == "" && i+1 < len(lines) {
			i++
			cmd = strings.TrimSpace(lines[i])
		}
		for strings.HasSuffix(cmd, " \\") && i+1 < len(lines) {
			i++
			cmd = strings.TrimSuffix(cmd, " \\") + " " + strings.TrimSpace(lines[i])
		}
		return cmd
	}
	return ""
}

// A repro command repeats a bool flag as one word (its value as a second
// word would be read as a FILE) and masks the credentials after it.
func TestCommandKeepsBoolFlagsOneWordAndMasksCredentials(t *testing.T) {
	got := Command("a.yaml", Overrides{Flags: []string{"--insecure=true", "--header", "Authorization: Bearer t0k3n", "--dsn", "postgres://u:pw123@h/db"}})
	for _, want := range []string{" --insecure=true ", "--header 'Authorization: ***'", "--dsn 'postgres://u:***@h/db'"} {
		if !strings.Contains(got, want) {
			t.Errorf("%s: want %q", got, want)
		}
	}
	if strings.Contains(got, "t0k3n") || strings.Contains(got, "pw123") {
		t.Errorf("%s shows a credential", got)
	}
}
