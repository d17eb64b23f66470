package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/target"
)

// An open loop that fell behind its rate is a warning in the text report
// and counts in the JSON; one that kept it, counts only.
func TestAnOpenLoopBehindItsRateIsAWarning(t *testing.T) {
	cfg := bench.DefaultConfig()
	cfg.Rate = 50000
	behind := &bench.Result{Config: cfg, Lateness: bench.Lateness{
		Threshold: time.Millisecond, Started: 2600, Late: 2500, MaxLag: 2300 * time.Millisecond, Unsent: 147000,
	}}
	b := FromBench(behind, "memory", checker.Report{})
	var text bytes.Buffer
	if err := writeText(&text, b, 400); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"warning: the open loop did not keep its rate of 50.0k ops/s", "2500 of 2600 operations started more than 1ms after", "147000 due before the run ended were never sent"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the text report does not say %q:\n%s", want, text.String())
		}
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, b); err != nil {
		t.Fatal(err)
	}
	var got struct{ Schedule Schedule }
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Schedule.LateStarts != 2500 || got.Schedule.Unsent != 147000 || got.Schedule.Warning == "" || got.Schedule.MaxLagMs != 2300 {
		t.Errorf("JSON schedule %+v", got.Schedule)
	}

	kept := &bench.Result{Config: cfg, Lateness: bench.Lateness{Threshold: time.Millisecond, Started: 1000, Late: 3}}
	text.Reset()
	if err := writeText(&text, FromBench(kept, "memory", checker.Report{}), 400); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text.String(), "did not keep its rate") {
		t.Errorf("3 late starts in 1000 flagged as falling behind:\n%s", text.String())
	}
}

// A variant switched on by the schedule is named in the text report's
// first line beside the core's behaviour, so that a failure inside its
// window is not read as the correct core's.
func TestTheTextReportNamesAVariantWindow(t *testing.T) {
	cfg := bench.DefaultConfig()
	cfg.Duration = 10 * time.Minute
	cfg.Timed = []target.TimedFault{{Kind: target.VariantOn, At: 30 * time.Second, For: 10 * time.Minute, Variant: "racy-counter"}}
	var text bytes.Buffer
	if err := writeText(&text, FromBench(&bench.Result{Config: cfg, Elapsed: cfg.Duration}, "memory", checker.Report{}), 400); err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(text.String(), "\n")
	if want := "behaviour correct, then racy-counter from 30s for 10m0s (--schedule variant_on)"; !strings.Contains(first, want) {
		t.Errorf("the first line does not say %q:\n%s", want, first)
	}
	cfg.Timed = nil
	text.Reset()
	if err := writeText(&text, FromBench(&bench.Result{Config: cfg, Elapsed: cfg.Duration}, "memory", checker.Report{}), 400); err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(text.String(), "\n"); !strings.HasSuffix(first, "behaviour correct") {
		t.Errorf("without a window: %s", first)
	}
}

// An interrupted run's verdict line says so: its pass is a shorter run's
// (bench exits 6), and the line alone read as the whole run's pass.
func TestTheVerdictLineOfAnInterruptedRun(t *testing.T) {
	for _, interrupted := range []bool{true, false} {
		var text bytes.Buffer
		b := FromBench(&bench.Result{Config: bench.DefaultConfig(), Interrupted: interrupted}, "memory", checker.Report{})
		if err := writeText(&text, b, 400); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(text.String()), "\n")
		last := lines[len(lines)-1]
		if said := strings.Contains(last, "(interrupted: the writers stopped early"); !strings.HasPrefix(last, "verdict: ") || said != interrupted {
			t.Errorf("interrupted %v: the verdict line is %q", interrupted, last)
		}
	}
}

// A closed loop's latency table says what it cannot count (its end_to_end
// is service: a stall counted once, not in the starts it delayed); an
// open loop's, measured from intended starts, says nothing of the kind.
func TestAClosedLoopSaysItsLatencyHidesStalls(t *testing.T) {
	for _, rate := range []float64{0, 100} {
		cfg := bench.DefaultConfig()
		cfg.Rate = rate
		res := &bench.Result{Config: cfg, Elapsed: time.Second}
		res.Counts.Operations = 10
		var text bytes.Buffer
		if err := writeText(&text, FromBench(res, "memory", checker.Report{}), 400); err != nil {
			t.Fatal(err)
		}
		said := strings.Contains(text.String(), "closed loop: a writer starts when its last operation ends, so end_to_end is service")
		if said != (rate == 0) {
			t.Errorf("rate %v: the closed-loop note printed %v:\n%s", rate, said, text.String())
		}
	}
}
