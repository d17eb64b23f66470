package bench

import (
	"testing"
	"time"

	"github.com/chatseq/chatseq/target"
)

// The live metrics name an open window as the user's schedule does
// (kafka_outage, docs/metrics.md), not by the kind's internal spelling.
func TestFaultWindowsAreNamedAsSchedulesNameThem(t *testing.T) {
	var clock runClock
	clock.begin()
	open := faultWindows([]target.TimedFault{
		{Kind: target.KafkaOutage, At: 0, For: time.Hour},
		{Kind: target.StoreStall, At: time.Hour, For: time.Second},
		{Kind: target.DeleteCounter, At: 0, Chat: 0},
	}, &clock)()
	want := map[string]bool{"kafka_outage": true, "store_stall": false}
	if len(open) != len(want) {
		t.Fatalf("windows %v, want %v", open, want)
	}
	for name, active := range want {
		if got, ok := open[name]; !ok || got != active {
			t.Errorf("window %s: %v (listed %v), want %v; all: %v", name, got, ok, active, open)
		}
	}
}
