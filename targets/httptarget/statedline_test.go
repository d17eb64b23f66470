package httptarget

import (
	"testing"

	"github.com/chatseq/chatseq/history"
)

// The contract line chatseq serve prints reads back as the contract it
// states, each field a mapping states; anything else on the line after
// the listening line is no statement, and bench --serve adopts nothing.
func TestAStatedContractReadsBack(t *testing.T) {
	ledger := history.Contract{Gaps: history.GapsForbidden, KeyReuse: history.KeyReuseReject, KeyScope: history.KeyScopeClient,
		SendMembership: history.SendMembershipChecked, ReadMembership: history.ReadMembershipChecked, StreamStart: history.StreamStartAtConnect}
	line := "  " + StatedContract(ledger) + "; drive it with bench --target http --gaps forbidden\n"
	got, ok := parseStatedContract(line)
	if !ok || got != ledger {
		t.Fatalf("%q read back as %+v, %v; want %+v", line, got, ok, ledger)
	}
	for _, bad := range []string{
		"",
		"  push channel off: /v1/push needs the events topic",
		"contract: gaps sometimes",
		"contract: gaps allowed, gaps forbidden",
		"contract: events ordered", // a field a mapping does not state
		"contract: colour blue",
		"contract: gaps",
		"contract:gaps allowed",
	} {
		if c, ok := parseStatedContract(bad); ok {
			t.Errorf("%q read as a statement: %+v", bad, c)
		}
	}
}
