package report

import (
	"slices"
	"testing"

	"github.com/chatseq/chatseq/checker"
)

// contradictionLines are the history lines of a chain of three operations
// on chat c1: a persist acked sequence 5, a sync that returned it, and a
// persist of unknown outcome, with no completion in the counterexample.
var contradictionLines = map[int]string{
	10: `{"type":"invoke","process":1,"f":"persist","time":1000,"chat":"c1","key":"w0-m1"}`,
	11: `{"type":"ok","process":1,"f":"persist","time":3000,"chat":"c1","key":"w0-m1","seq":5,"message_id":"m5"}`,
	20: `{"type":"invoke","process":2,"f":"sync","time":2000,"chat":"c1","after":0,"limit":10}`,
	21: `{"type":"ok","process":2,"f":"sync","time":2500,"chat":"c1","messages":[]}`,
	30: `{"type":"invoke","process":3,"f":"persist","time":4000,"chat":"c1","key":"w1-m9"}`,
	40: `{"type":"invoke","process":4,"f":"persist","time":4500,"chat":"c1","key":"w2-m2"}`,
	41: `{"type":"info","process":4,"f":"persist","time":5000,"chat":"c1","key":"w2-m2","error":"crash_after_allocate"}`,
}

// The exact checker's claims, each shape of them, read back as the
// operations they name in order, with the reason each follows the one
// before, its history lines and its span on the timeline; an operation of
// the counterexample the claim does not name is listed after them.
func TestContradictionReadsTheCheckersClaim(t *testing.T) {
	cases := []struct {
		name, detail string
		lines        []int
		steps        []contradictionStep // N, Line, Desc and Why
		others       []int
	}{
		{"a cycle", `chat "c1" is not linearizable: these operations must each take effect before the next, and the last before the first: line 20 sync after 0 limit 10 → [], then line 10 persist w0-m1 → ok 5 m5 (the sync did not return sequence 5), then line 30 persist w1-m9 → crash_in_persist (it answers that key) (visualization: runs/x/linearizability/linearizability-c1.html)`,
			[]int{10, 11, 20, 21, 30}, []contradictionStep{
				{N: 1, Line: 20, Desc: "sync after 0 limit 10 → []"},
				{N: 2, Line: 10, Desc: "persist w0-m1 → ok 5 m5", Why: "the sync did not return sequence 5"},
				{N: 3, Line: 30, Desc: "persist w1-m9 → crash_in_persist", Why: "it answers that key"}}, nil},
		{"two operations no order allows together", `chat "c1" is not linearizable: no order satisfies both line 10 persist w0-m1 → ok 5 m5 and line 30 persist w1-m9 → rejected (reused): the key was answered another way`,
			[]int{10, 11, 30}, []contradictionStep{
				{N: 1, Line: 10, Desc: "persist w0-m1 → ok 5 m5"},
				{N: 2, Line: 30, Desc: "persist w1-m9 → rejected (reused)"}}, nil},
		{"sequences no persist could have committed", `chat "c1" is not linearizable: sequences 6 were shown or answered, but no persist acked as new committed them and only 1 persists of unknown outcome could have in time: sequence 6 was needed by line 20 sync after 0 limit 10 → [6] (no visualization: the 3 operations around the counterexample are linearizable without the rest)`,
			[]int{20, 21, 40, 41}, []contradictionStep{{N: 1, Line: 20, Desc: "sync after 0 limit 10 → [6]"}}, []int{40}},
	}
	for _, c := range cases {
		got := newContradiction(checker.Result{Name: checker.NameLinearizability, Status: checker.Fail, Detail: c.detail, Lines: c.lines}, contradictionLines)
		if got == nil || got.Chat != "c1" {
			t.Fatalf("%s: %+v, want a contradiction in chat c1", c.name, got)
		}
		if len(got.Steps) != len(c.steps) {
			t.Fatalf("%s: steps %+v, want %+v", c.name, got.Steps, c.steps)
		}
		for i, s := range got.Steps {
			w := c.steps[i]
			if s.N != w.N || s.Line != w.Line || s.Desc != w.Desc || s.Why != w.Why {
				t.Errorf("%s: step %d is %d line %d %q (why %q), want %d line %d %q (why %q)", c.name, i+1, s.N, s.Line, s.Desc, s.Why, w.N, w.Line, w.Desc, w.Why)
			}
			if s.Invoke.N != s.Line || s.Invoke.Text != contradictionLines[s.Line] {
				t.Errorf("%s: step %d's invoke line %+v", c.name, i+1, s.Invoke)
			}
		}
		var others []int
		for _, o := range got.Others {
			others = append(others, o.Line)
		}
		if !slices.Equal(others, c.others) {
			t.Errorf("%s: other operations at lines %v, want %v", c.name, others, c.others)
		}
	}

	// The cycle's timeline: 1000 to 4000 ns. The persist at line 10 spans
	// its invoke (1000) to its ack at line 11 (3000); the sync 2000-2500;
	// the persist at line 30 never completed, so it reaches the end.
	cycle := newContradiction(checker.Result{Name: checker.NameLinearizability, Status: checker.Fail, Detail: cases[0].detail, Lines: cases[0].lines}, contradictionLines)
	want := map[int][3]float64{20: {100.0 / 3, 50.0 / 3, 21}, 10: {0, 200.0 / 3, 11}, 30: {99.5, 0.5, 0}}
	for _, s := range cycle.Steps {
		w := want[s.Line]
		if !near(s.Left, w[0]) || !near(s.Width, w[1]) || s.Complete.N != int(w[2]) {
			t.Errorf("line %d: left %.2f%% width %.2f%% completed at line %d, want %.2f%% %.2f%% line %d", s.Line, s.Left, s.Width, s.Complete.N, w[0], w[1], int(w[2]))
		}
	}
	if cycle.Span != 3000 || cycle.SpanText() != "3µs" {
		t.Errorf("span %d ns (%s), want 3000 (3µs)", cycle.Span, cycle.SpanText())
	}

	if newContradiction(checker.Result{Name: "sequence_uniqueness", Status: checker.Fail, Detail: "x"}, nil) != nil {
		t.Error("a contradiction for another invariant")
	}
}

func near(a, b float64) bool { return a-b < 1e-6 && b-a < 1e-6 }
