package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
)

// The server kills a run carried out are faults it injected: the text
// report counts them ("faults injected 0" hid every kill) and names them.
func TestServerKillsAreCountedAsFaults(t *testing.T) {
	res := &bench.Result{Config: bench.DefaultConfig(), Elapsed: time.Second, ServerKills: 3}
	res.Counts.FaultsInjected = 2
	b := FromBench(res, "HTTP service", checker.Report{})
	if b.FaultsInjected != 5 || b.ServerKills != 3 {
		t.Fatalf("faults injected %d, server kills %d; want 5 (2 + 3 kills) and 3", b.FaultsInjected, b.ServerKills)
	}
	var text bytes.Buffer
	if err := WriteText(&text, b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "faults injected       5      server kills 3, retries 0") {
		t.Fatalf("the text report should count and name the kills:\n%s", text.String())
	}
}
