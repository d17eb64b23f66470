package metrics

import (
	"os"

	"github.com/chatseq/chatseq/checker"
)

// Checking reports a check of the history at path as started; call the
// returned done with its report (nil: the history could not be read).
func (e *Exporter) Checking(path string) (done func(*checker.Report)) {
	if e == nil {
		return func(*checker.Report) {}
	}
	var size int64
	if fi, err := os.Stat(path); err == nil {
		size = fi.Size()
	}
	e.SetPhase(PhaseCheck)
	e.CheckStarted(size)
	return func(rep *checker.Report) {
		e.CheckFinished(Verdicts(rep))
	}
}

// PhaseCheck is chatseq_phase while the checker runs.
const PhaseCheck = "check"

// Verdicts counts a report's invariants by verdict; nil for no report.
func Verdicts(rep *checker.Report) map[string]int {
	if rep == nil {
		return nil
	}
	v := map[string]int{}
	for _, inv := range rep.Invariants {
		v[string(inv.Status)]++
	}
	if n := len(rep.NotApplicable); n > 0 {
		v["n/a"] = n
	}
	return v
}
