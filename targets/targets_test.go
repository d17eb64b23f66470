package targets

import (
	"context"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history"
)

func TestOpenMemoryIsADR004OnTheEmbeddedStore(t *testing.T) {
	o, err := Open(context.Background(), "memory", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if !o.Fresh || o.Contract.Gaps != history.GapsAllowed || o.Contract.KeyReuse != history.KeyReuseReturnOriginal || o.Topic == "" {
		t.Fatalf("memory target %+v", o)
	}
}

func TestUnknownTargetNamesTheKnownOnes(t *testing.T) {
	_, err := Open(context.Background(), "oracle", Options{})
	if err == nil || !strings.Contains(err.Error(), "memory") {
		t.Fatalf("got %v, want an error listing the known targets", err)
	}
	if Known("oracle") || !Known("dynamodb-local") {
		t.Fatal("Known disagrees with the registry")
	}
}

// Receivers against a design that publishes no events, and serves no push
// channel of its own, are refused as flags are (exit 2), before the run:
// bench --target ledger --receivers 2 failed once it had begun, exit 5.
func TestReceiversNeedADesignThatPublishes(t *testing.T) {
	ledger := &Opened{Describe: "ledger", Contract: history.Contract{Events: history.EventsNone}}
	if err := ledger.CheckReceivers(2); err == nil || !strings.Contains(err.Error(), "ledger publishes no events") {
		t.Errorf("receivers against a design without events: %v", err)
	}
	for _, ok := range []*Opened{
		{Describe: "memory", Contract: history.Contract{Events: history.EventsAtLeastOnce}},
		{Describe: "a service", Contract: history.Contract{Events: history.EventsNone}, Remote: true},
	} {
		if err := ok.CheckReceivers(2); err != nil {
			t.Errorf("%s: %v", ok.Describe, err)
		}
	}
	if err := ledger.CheckReceivers(0); err != nil {
		t.Errorf("no receivers: %v", err)
	}
}
