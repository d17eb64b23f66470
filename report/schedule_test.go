package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
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
