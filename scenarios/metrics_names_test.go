package scenarios

import (
	"testing"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
)

// Every count a run's metrics hold is one a threshold may name:
// keys_across_chats was measured and documented, and a threshold on it
// was refused as an unknown metric.
func TestEveryCountIsAThresholdMetric(t *testing.T) {
	cfg := bench.DefaultConfig()
	cfg.Receivers = 1 // the receivers' counts too
	m := NewMetrics(&bench.Result{Config: cfg}, checker.Report{}, true, 0)
	for name := range m.counts {
		if _, ok := countMetrics[name]; !ok {
			t.Errorf("the count %q is measured but a threshold cannot name it", name)
		}
	}
}
