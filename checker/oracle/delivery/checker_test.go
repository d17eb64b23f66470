package delivery

import (
	"bytes"
	"time"

	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/history"
)

// chatseqVerdict is what chatseq's checker says of one invariant.
type chatseqVerdict struct {
	status status
	detail string
}

// readable says whether chatseq's reader accepts a history (the generator
// and the shrinker keep only those it does).
func readable(data []byte) (*history.History, error) {
	return history.Read(bytes.NewReader(data), "gen.jsonl")
}

// checkerOpts bounds porcupine: the delivery invariants do not need it,
// and a stray slow chat must not eat the test's time.
var checkerOpts = checker.Options{LinearizabilityTimeout: 200 * time.Millisecond}

// chatseqVerdicts runs chatseq's checker through its public API and reads
// the six delivery invariants from its report: judged ones from
// Invariants, the rest from NotApplicable.
func chatseqVerdicts(h *history.History) map[string]chatseqVerdict {
	rep := checker.Check(h, checkerOpts)
	out := map[string]chatseqVerdict{}
	for _, name := range invariants {
		if res, ok := rep.Result(name); ok {
			out[name] = chatseqVerdict{status(res.Status), res.Detail}
			continue
		}
		for _, n := range rep.NotApplicable {
			if n.Name == name {
				out[name] = chatseqVerdict{na, n.Reason}
			}
		}
		if _, ok := out[name]; !ok {
			out[name] = chatseqVerdict{"missing", "the report neither judges it nor lists it as not applicable"}
		}
	}
	return out
}
