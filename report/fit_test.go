package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/internal/textwidth"
)

// At any terminal width the text report keeps within it, and wrapping
// never splits a word or a number: every word of the unlimited report is
// still there, whole.
func TestTextFitsTheTerminalWithoutSplittingWords(t *testing.T) {
	b := benchReport(t)
	b.Check.Warnings = append(b.Check.Warnings, "late commits below a cursor: 12345 messages got a sequence below one a sync had already returned without them")
	b.Check.Invariants = append(b.Check.Invariants, checker.Result{Name: "event_order", Status: checker.Fail,
		Detail: `The Message Service promises "Strict Ordering per Conversation" (§5) on a topic "partitioned by conversation_id"; violated: 23 violations; smallest: chat "chat-0003" seq 17 (line 4711) before seq 16 (line 4690)`,
		Lines:  []int{4690, 4711}})
	var full bytes.Buffer
	if err := writeText(&full, b, 0); err != nil {
		t.Fatal(err)
	}
	words := strings.Fields(full.String())
	for _, width := range []int{60, 80, 120} {
		var fitted bytes.Buffer
		if err := writeText(&fitted, b, width); err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(fitted.String(), "\n") {
			if textwidth.Columns(l) > width && len(strings.Fields(l)) > 1 {
				t.Errorf("width %d: a %d-column line %q", width, textwidth.Columns(l), l)
			}
		}
		if got := strings.Fields(fitted.String()); strings.Join(got, " ") != strings.Join(words, " ") {
			t.Errorf("width %d: the words differ from the unlimited report's (a word was split or lost):\n%s", width, fitted.String())
		}
	}
	// A detail wraps under its column, where there is room for one.
	var at120 bytes.Buffer
	writeText(&at120, b, 120)
	if !strings.Contains(at120.String(), "\n"+strings.Repeat(" ", len("gap_is_allocation_without_persistence  verdict  "))+"") {
		t.Errorf("no detail continued under its column at 120 columns:\n%s", at120.String())
	}
}

// The side-by-side table, too wide for a narrow terminal, becomes one
// paragraph per target.
func TestComparisonFitsTheTerminal(t *testing.T) {
	b := benchReport(t)
	runs := []Bench{b, b}
	runs[1].Run.Target = "postgres"
	var wide, narrow bytes.Buffer
	writeComparison(&wide, runs, 0)
	writeComparison(&narrow, runs, 60)
	if lines := strings.Split(strings.TrimSpace(wide.String()), "\n"); len(lines) != 3 || textwidth.Columns(lines[0]) <= 60 {
		t.Fatalf("unlimited table:\n%s", wide.String())
	}
	for _, l := range strings.Split(narrow.String(), "\n") {
		if textwidth.Columns(l) > 60 {
			t.Errorf("a %d-column line at 60 columns: %q", textwidth.Columns(l), l)
		}
	}
	if !strings.Contains(narrow.String(), "postgres: ops/s ") || !strings.Contains(narrow.String(), "verdict PASS") {
		t.Errorf("narrow comparison:\n%s", narrow.String())
	}
}

// compare's text at 60 and 200 columns: no line wider than the terminal
// (save a single word, a path), every word of the unlimited text whole;
// at 200 columns the table stays a table, at 60 each row is a paragraph.
func TestComparisonTextFitsTheTerminal(t *testing.T) {
	a := runsOf([]float64{1.0, 0.6, 0.85}, 20)
	b := runsOf([]float64{0.05, 0.06, 0.04}, 20)
	b[0].Run.Loop = "closed"
	several := Compare([]RunSets{{A: a, B: b}}, CompareOptions{Tolerance: 0.1})
	several.A = []string{"runs/base1", "runs/base2", "/a/long/path/to/a/results/directory/of/the/third/baseline/run"}
	several.B = []string{"runs/head1", "runs/head2", "runs/head3"}
	single := Compare([]RunSets{Pair(a[0], b[0])}, CompareOptions{Tolerance: 0.1})
	single.A, single.B = []string{"runs/a"}, []string{"runs/b"}
	for _, c := range []Comparison{several, single} {
		var full bytes.Buffer
		if err := writeComparisonText(&full, c, 0); err != nil {
			t.Fatal(err)
		}
		words := strings.Fields(full.String())
		for _, width := range []int{60, 200} {
			var fitted bytes.Buffer
			if err := writeComparisonText(&fitted, c, width); err != nil {
				t.Fatal(err)
			}
			text := fitted.String()
			for _, l := range strings.Split(text, "\n") {
				if textwidth.Columns(l) > width && len(strings.Fields(l)) > 1 {
					t.Errorf("width %d: a %d-column line %q", width, textwidth.Columns(l), l)
				}
			}
			if width == 200 {
				if got := strings.Fields(text); strings.Join(got, " ") != strings.Join(words, " ") {
					t.Errorf("width %d: the words differ from the unlimited text's:\n%s", width, text)
				}
				if !strings.Contains(text, "\nmetric  ") {
					t.Errorf("width %d: no table:\n%s", width, text)
				}
				continue
			}
			// At 60 a row too wide for a table is a paragraph.
			if c.Targets[0].RunsA > 1 && !strings.Contains(text, "\nthroughput: A 8.5k ops/s, B 500 ops/s, B/A ×0.06,\n  p (Holm) 0.000, p runs (Holm) 0.001,") {
				t.Errorf("width %d: no paragraph for throughput:\n%s", width, text)
			}
			for _, w := range strings.Fields(text) {
				if !slices.Contains(words, strings.TrimRight(w, ",;:")) && !slices.Contains(words, w) && !strings.Contains(full.String(), strings.TrimRight(w, ",;:")) {
					t.Errorf("width %d: %q is not in the unlimited text: a word was split", width, w)
				}
			}
		}
	}
}
