package scenarios

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
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
	// The summary says the run was cut short, and by what: a pass here
	// is not a whole run's.
	var text, js bytes.Buffer
	s := &Summary{Outcomes: []*Outcome{o}}
	if err := writeText(&text, s, 0); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&js, s); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{text.String(), js.String()} {
		if !strings.Contains(out, "the online check found sequence_uniqueness violated at line") || !strings.Contains(out, "the writers stopped after") {
			t.Errorf("the summary does not say fail_fast stopped the writers:\n%s", out)
		}
	}
	if !strings.Contains(text.String(), "fail-fast stopped early (fail_fast): ") {
		t.Errorf("the text summary does not name the scenario that stopped early:\n%s", text.String())
	}
}

// Options.Live is told a scenario's progress and each first violation
// while its writers go, with fail_fast or without; a shrink's runs are
// not told.
func TestLiveIsToldTheRunAsItGoes(t *testing.T) {
	sc, err := Decode([]byte(`name: live
target: memory
kafka: off
writers: 8
chats: 4
ops: 20000
schedule:
  - {fault: variant_on, at: 0s, for: 1h, variant: racy-counter}
expect:
  violates: [sequence_uniqueness]
`), "live.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var told []string
	var reports, done int
	opts := Options{OutDir: t.TempDir(), Live: func(got *Scenario) (func(bench.Progress), func(checker.Violation)) {
		if got != sc {
			t.Errorf("told of scenario %q, not %q", got.Name, sc.Name)
		}
		return func(p bench.Progress) {
				mu.Lock()
				defer mu.Unlock()
				reports++
				if p.Done {
					done++
				}
			}, func(v checker.Violation) {
				mu.Lock()
				defer mu.Unlock()
				told = append(told, v.Invariant)
			}
	}}
	o := Run(context.Background(), sc, opts)
	if o.Verdict != Pass {
		t.Fatalf("%s: %v", o.Verdict, o.Problems)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(told, "sequence_uniqueness") || done != 1 {
		t.Errorf("told violations %v and %d progress reports (%d done), want sequence_uniqueness and one done", told, reports, done)
	}
	if len(o.Online) != len(told) {
		t.Errorf("told %d violations live, the outcome lists %d", len(told), len(o.Online))
	}
}

// A scenario whose target acknowledges no persist (every attempt crashes
// before it allocates) does not meet expect: pass: a pass of nothing is
// undecided (report.JudgedRun).
func TestAScenarioOfNoOperationDoesNotPass(t *testing.T) {
	sc, err := Decode([]byte("name: nothing\ntarget: memory\nkafka: off\nduration: 300ms\nfaults:\n  crash_before_allocate: 1\nexpect: pass\n"), "nothing.yaml")
	if err != nil {
		t.Fatal(err)
	}
	o := Run(context.Background(), sc, Options{OutDir: t.TempDir()})
	if o.Verdict != Undecided || o.Check.Valid != nil || len(o.Problems) == 0 || !strings.Contains(o.Problems[len(o.Problems)-1], "no persist was acknowledged") {
		t.Fatalf("%s (check valid %v): %v", o.Verdict, o.Check.Valid, o.Problems)
	}
}

// A negative scenario whose variant_on window never opened (the writers
// were done first) fails naming that, not as the checker missing the
// variant's bug.
func TestANegativeScenarioSaysItsWindowNeverOpened(t *testing.T) {
	sc, err := Decode([]byte(`name: late
target: memory
kafka: off
writers: 4
chats: 2
ops: 200
schedule:
  - {fault: variant_on, at: 100h, for: 1s, variant: racy-counter}
expect:
  violates: [sequence_uniqueness]
`), "late.yaml")
	if err != nil {
		t.Fatal(err)
	}
	o := Run(context.Background(), sc, Options{OutDir: t.TempDir()})
	if o.Verdict != Fail || len(o.Problems) == 0 || !strings.Contains(o.Problems[0], "the variant_on window racy-counter at 100h0m0s never opened: the writers stopped at") {
		t.Fatalf("%s: %q", o.Verdict, o.Problems)
	}
}
