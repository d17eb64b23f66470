package all_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/scenarios"
	"github.com/chatseq/chatseq/targets"
	_ "github.com/chatseq/chatseq/targets/all"
)

// Importing the package registers both designs.
func TestRegistersTheTargets(t *testing.T) {
	for _, name := range []string{"postgres", "ledger"} {
		if !targets.Known(name) {
			t.Errorf("%s is not registered (known: %v)", name, targets.Names())
		}
	}
}

// The shipped postgres-*.yaml and ledger-*.yaml scenarios decode and meet
// their expectations and thresholds. (scenarios' own shipped test runs them
// too once that package imports this one.)
func TestShippedTargetScenarios(t *testing.T) {
	var files []string
	for _, pattern := range []string{"postgres-*.yaml", "ledger-*.yaml"} {
		m, err := filepath.Glob(filepath.Join("..", "..", "scenarios", pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 3 {
		t.Fatalf("found only %v", files)
	}
	scs, err := scenarios.Load(files)
	if err != nil {
		t.Fatalf("a scenario does not decode:\n%v", err)
	}
	cache := scenarios.NewTargetCache()
	defer cache.Close()
	for _, sc := range scs {
		o := scenarios.Run(context.Background(), sc, scenarios.Options{OutDir: t.TempDir(), Targets: cache})
		if o.Verdict != scenarios.Pass {
			t.Errorf("%s: %s\n  %s", sc.Name, o.Verdict, strings.Join(o.Problems, "\n  "))
		}
	}
}
