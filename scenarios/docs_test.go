package scenarios

import (
	"context"
	"os"
	"strings"
	"testing"
)

// The annotated example in docs/scenarios.md decodes and meets its own
// expectation, so the documentation cannot drift from the format.
func TestDocumentedExampleRuns(t *testing.T) {
	doc, err := os.ReadFile("../docs/scenarios.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "## An annotated example")
	if !ok {
		t.Fatal("docs/scenarios.md has no annotated example")
	}
	_, rest, _ = strings.Cut(rest, "```yaml\n")
	example, _, ok := strings.Cut(rest, "```")
	if !ok || example == "" {
		t.Fatal("the annotated example is not a yaml block")
	}
	sc, err := Decode([]byte(example), "docs/scenarios.md")
	if err != nil {
		t.Fatalf("the documented example does not decode:\n%v", err)
	}
	o := Run(context.Background(), sc, Options{OutDir: t.TempDir()})
	if o.Verdict != Pass {
		t.Fatalf("the documented example: %s\n%s", o.Verdict, strings.Join(o.Problems, "\n"))
	}
}
