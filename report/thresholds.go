package report

import (
	"fmt"
	"io"
)

// ThresholdResult is one k6-style threshold ("allocate.p99 < 50ms")
// judged against a run: a scenario file's, or a --threshold flag's.
type ThresholdResult struct {
	Expr   string  `json:"threshold"`
	Line   int     `json:"line,omitempty"` // in the scenario file; 0 for a flag
	Actual string  `json:"actual"`         // formatted in the metric's unit; "no data" if none
	Value  float64 `json:"value"`          // the raw measured value
	OK     bool    `json:"ok"`
}

// ThresholdsFailed counts the thresholds that did not hold.
func ThresholdsFailed(ts []ThresholdResult) int {
	n := 0
	for _, t := range ts {
		if !t.OK {
			n++
		}
	}
	return n
}

// writeThresholds prints each threshold with its verdict and the value
// measured.
func writeThresholds(w io.Writer, ts []ThresholdResult, width int) error {
	var tab table
	tab.add("threshold", "verdict", "actual")
	for _, t := range ts {
		verdict := "PASS"
		if !t.OK {
			verdict = "FAIL"
		}
		tab.add(t.Expr, verdict, t.Actual)
	}
	return tab.write(w, width)
}

// thresholdVerdict is the verdict line's word on the thresholds, "" when
// the run had none.
func thresholdVerdict(ts []ThresholdResult) string {
	if len(ts) == 0 {
		return ""
	}
	if failed := ThresholdsFailed(ts); failed > 0 {
		return fmt.Sprintf("   thresholds: FAIL (%d of %d)", failed, len(ts))
	}
	return fmt.Sprintf("   thresholds: PASS (%d)", len(ts))
}
