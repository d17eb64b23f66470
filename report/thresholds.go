package report

import (
	"fmt"
	"io"
	"text/tabwriter"
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
func writeThresholds(w io.Writer, ts []ThresholdResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "threshold\tverdict\tactual\n")
	for _, t := range ts {
		verdict := "PASS"
		if !t.OK {
			verdict = "FAIL"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", t.Expr, verdict, t.Actual)
	}
	return tw.Flush()
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
