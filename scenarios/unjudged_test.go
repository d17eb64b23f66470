package scenarios

import (
	"strings"
	"testing"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/report"
)

// expect: pass takes no pass that bench would call unknown
// (report.JudgedRun): no persist acknowledged, a push channel that
// streamed nothing, or one whose service ended the devices' connections
// so that no live stream was judged. chatseq run passed the last (an
// outside tester's scenario with receivers against a push channel that
// closed every connection after its first frame: bench said unknown,
// run said pass), as it did the second: it knew only the first.
func TestExpectPassTakesNoPassOfNothing(t *testing.T) {
	sc, err := Decode([]byte("name: recv\ntarget: memory\nduration: 1s\nreceivers: 2\nexpect: pass\n"), "recv.yaml")
	if err != nil {
		t.Fatal(err)
	}
	acked := bench.Counts{Operations: 10, Persists: 10, OK: 10, PersistOK: 10}
	naStream := checker.NotApplicable{Name: checker.NameStreamCompleteness, Reason: "no live stream"}
	for _, c := range []struct {
		name     string
		counts   bench.Counts
		received bench.ReceiverCounts
		na       []checker.NotApplicable
		want     Verdict
		why      string
	}{
		{"judged", acked, bench.ReceiverCounts{Devices: 4, Deliveries: 40, CaughtUp: 10}, nil, Pass, ""},
		{"nothing acknowledged", bench.Counts{Operations: 10, Persists: 10, Info: 10}, bench.ReceiverCounts{Devices: 4}, nil, Undecided, "no persist was acknowledged"},
		{"nothing streamed", acked, bench.ReceiverCounts{Devices: 4, Deliveries: 40, CaughtUp: 40}, nil, Undecided, "the push channel streamed nothing"},
		{"no stream judged", acked, bench.ReceiverCounts{Devices: 4, Deliveries: 40, CaughtUp: 30, Ended: 9}, []checker.NotApplicable{naStream}, Undecided, "the push channel ended 9"},
	} {
		t.Run(c.name, func(t *testing.T) {
			valid := true
			res := &bench.Result{Config: sc.Config(), Counts: c.counts, Receivers: c.received}
			rep := report.JudgedRun(res, checker.Report{Valid: &valid, NotApplicable: c.na})
			o := &Outcome{Scenario: sc, Check: rep, unjudged: report.Unjudged(res, rep)}
			judge(o, NewMetrics(res, rep, true, 0))
			if o.Verdict != c.want {
				t.Fatalf("%s, want %s: %v", o.Verdict, c.want, o.Problems)
			}
			if (c.want == Pass) != (rep.Valid != nil && *rep.Valid) {
				t.Errorf("bench's verdict (valid %v) and run's (%s) disagree", rep.Valid, o.Verdict)
			}
			if c.why != "" && !strings.Contains(strings.Join(o.Problems, "; "), c.why) {
				t.Errorf("problems %q do not say %q", o.Problems, c.why)
			}
		})
	}
}

// chatseq run --require X outranks a scenario's allow_unknown: [X], as
// one file may not hold both: X unknown leaves the scenario undecided. It
// was waived, and run passed (exit 0) what it was asked to require (an
// outside tester's).
func TestRunsRequireOutranksAllowUnknown(t *testing.T) {
	sc, err := Decode([]byte("name: au\ntarget: memory\nduration: 1s\nallow_unknown: [sync_completeness]\nexpect: pass\n"), "au.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res := &bench.Result{Config: sc.Config(), Counts: bench.Counts{Operations: 10, Persists: 10, OK: 10, PersistOK: 10}}
	rep := checker.Report{Invariants: []checker.Result{{Name: checker.NameSyncCompleteness, Status: checker.Unknown, Detail: "required, but not applicable"}}}
	for _, c := range []struct {
		required []string
		want     Verdict
	}{{nil, Pass}, {[]string{checker.NameSyncCompleteness}, Undecided}} {
		o := &Outcome{Scenario: sc, Check: rep, required: c.required}
		judge(o, NewMetrics(res, rep, true, 0))
		if o.Verdict != c.want {
			t.Errorf("--require %v: %s, want %s: %v", c.required, o.Verdict, c.want, o.Problems)
		}
	}
}
