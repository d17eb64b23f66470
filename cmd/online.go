package cmd

import (
	"fmt"
	"sync"

	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/metrics"
)

// onlineWatch is a run's online check as the command shows it: each
// invariant's first violation goes to the progress output and the
// metrics as it is found, and with --fail-fast it stops the writers.
type onlineWatch struct {
	online *checker.Online
	stop   chan struct{} // closed at the first violation under --fail-fast; nil otherwise

	mu    sync.Mutex
	first string
}

func newOnlineWatch(failFast bool, m *metrics.Exporter, progress *progressPrinter, target string) *onlineWatch {
	w := &onlineWatch{}
	if failFast {
		w.stop = make(chan struct{})
	}
	w.online = checker.NewOnline(func(v checker.Violation) {
		m.Violation(v.Invariant)
		progress.violation(target, v)
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.first == "" {
			w.first = fmt.Sprintf("the online check found %s violated at line %d", v.Invariant, v.Lines[len(v.Lines)-1])
			if w.stop != nil {
				close(w.stop)
			}
		}
	})
	return w
}

// stoppedBy is the violation that stopped the writers, "" when none did.
func (w *onlineWatch) stoppedBy() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stop == nil {
		return ""
	}
	return w.first
}
