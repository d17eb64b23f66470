package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
)

// A run whose final state gave no counter (a service without chatseq
// serve's test hooks) has no gap figure: the report printed "0.00%, 0 gaps
// in 0 allocated sequences" over a messages table with 301 holes (an
// outside tester's). Read tables keep the figure.
func TestGapsOfAnUnreadCounterAreUnknown(t *testing.T) {
	for _, c := range []struct {
		countersRead, messagesRead bool
		line                       string
	}{
		{false, true, "gap rate              -      unknown: the final state gave no counter"},
		{true, false, "gap rate              -      unknown: the final state gave no messages table"},
		{false, false, "gap rate              -      unknown: the final state was not read"},
		{true, true, "gap rate              20.00%  2 gaps in 10 allocated sequences"},
	} {
		res := &bench.Result{Config: bench.DefaultConfig(), Elapsed: time.Second, Allocations: 10, Persisted: 8,
			CountersRead: c.countersRead, MessagesRead: c.messagesRead}
		b := FromBench(res, "HTTP service", checker.Report{})
		var text bytes.Buffer
		if err := WriteText(&text, b); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text.String(), c.line) {
			t.Errorf("counters read %v, messages read %v: want %q in\n%s", c.countersRead, c.messagesRead, c.line, text.String())
		}
		unknown := !c.countersRead || !c.messagesRead
		if unknown != (b.GapsUnknown != "") || unknown && b.GapRateText() != "-" {
			t.Errorf("counters read %v, messages read %v: gaps_unknown %q, gap rate %s", c.countersRead, c.messagesRead, b.GapsUnknown, b.GapRateText())
		}
		var page bytes.Buffer
		if err := renderHTML(&page, Results{Bench: b}, newLatencySeries(0, 1), nil, time.Unix(0, 0)); err != nil {
			t.Fatal(err)
		}
		if said := strings.Contains(page.String(), "Gap rate unknown: "+b.GapsUnknown); said != unknown {
			t.Errorf("counters read %v, messages read %v: report.html says the gap rate is unknown: %v", c.countersRead, c.messagesRead, said)
		}
	}
}
