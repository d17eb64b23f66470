package scenarios

import (
	"context"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/checker"
)

// A run without syncs leaves sync_completeness not applicable, which a pass
// scenario accepts; require: makes it unknown, and the scenario undecided.
// chatseq run --require (Options.CheckOptions.Require) does the same.
func TestRequireMakesAbsentEvidenceUndecided(t *testing.T) {
	const src = "name: no-syncs\nops: 200\nwriters: 2\nchats: 2\nkafka: off\nexpect: pass\n"
	run := func(src string, require ...string) *Outcome {
		sc, err := Decode([]byte(src), "x.yaml")
		if err != nil {
			t.Fatal(err)
		}
		return Run(context.Background(), sc, Options{OutDir: t.TempDir(), CheckOptions: checker.Options{Require: require}})
	}
	o := run(src)
	if o.Verdict != Pass {
		t.Fatalf("without require: %s %q", o.Verdict, o.Problems)
	}
	na := false
	for _, n := range o.Check.NotApplicable {
		na = na || n.Name == checker.NameSyncCompleteness && strings.Contains(n.Reason, "no sync in the history")
	}
	if !na {
		t.Fatalf("sync_completeness is not n/a: %+v", o.Check.NotApplicable)
	}
	for _, o := range []*Outcome{run(src + "require: [sync_completeness]\n"), run(src, checker.NameSyncCompleteness)} {
		if o.Verdict != Undecided || len(o.Problems) != 1 ||
			!strings.Contains(o.Problems[0], "sync_completeness is unknown: required, but not applicable: no sync in the history") {
			t.Fatalf("with require: %s %q", o.Verdict, o.Problems)
		}
	}
	// Required and there: judged as usual.
	if o := run(strings.Replace(src, "expect: pass", "sync_ratio: 0.3\nexpect: pass", 1) + "require: [sync_completeness]\n"); o.Verdict != Pass {
		t.Fatalf("with syncs: %s %q", o.Verdict, o.Problems)
	}
}
