package checker

import (
	"path/filepath"
	"testing"
)

var deliveryInvariants = []string{NameEventualVisibility, NameIdenticalOrder, NameDeliveryStateConsistency, NamePushAuthorization, NameStreamContinuity}

// A history without receiver lines has every delivery invariant n/a,
// saying why.
func TestNoReceiversIsNotApplicable(t *testing.T) {
	r := keepsEverything().check(t)
	for _, name := range deliveryInvariants {
		mustContain(t, mustNA(t, r, name).Reason, "no receiver lines")
	}
}

// The reader's receivers file (a refused connection, a drop and a
// catch-up, a leave after the settle) keeps every delivery invariant it
// holds the evidence for, read as chatseq check reads it, through the Log
// as a history.ReceiverSink; it has no final events table, so
// stream_continuity (a connection's stream against the topic's order) is
// n/a, saying so.
func TestCheckFileJudgesReceivers(t *testing.T) {
	r, _, err := CheckFile(filepath.Join("..", "history", "testdata", "receivers.jsonl"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range deliveryInvariants {
		if name == NameStreamContinuity {
			mustContain(t, mustNA(t, r, name).Reason, "no final events table")
			continue
		}
		must(t, r, name, Pass)
	}
	mustAllPass(t, r)
}
