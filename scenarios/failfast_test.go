package scenarios

import (
	"context"
	"testing"
)

// A scenario's fail_fast stops its writers at the online check's first
// violation: a variant_on window from the start makes a scenario of many
// operations fail after a few, and the whole history's check confirms it.
func TestFailFastScenarioStopsAtTheFirstViolation(t *testing.T) {
	const asked = 400000
	sc, err := Decode([]byte(`name: fail-fast
target: memory
kafka: off
writers: 8
chats: 4
ops: 400000
fail_fast: true
schedule:
  - {fault: variant_on, at: 0s, for: 1h, variant: racy-counter}
expect:
  violates: [sequence_uniqueness]
`), "fail-fast.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !sc.FailFast {
		t.Fatal("fail_fast: true not read")
	}
	o := Run(context.Background(), sc, Options{OutDir: t.TempDir()})
	if o.Verdict != Pass { // expect: violates sequence_uniqueness, which the whole history's check found
		t.Fatalf("%s: %v (failing %v)", o.Verdict, o.Problems, o.Failing)
	}
	if o.Figures.Operations >= asked/10 {
		t.Errorf("the writers ran %d of %d operations after the first violation", o.Figures.Operations, asked)
	}
}
