package scenarios

import (
	"testing"

	"github.com/chatseq/chatseq/history"
)

// A scenario's contract: takes every field of history.ContractFields,
// spelled as the header spells it, with each of its values; another
// value is an error at its line naming the field.
func TestScenarioContractTakesEveryField(t *testing.T) {
	for _, f := range history.ContractFields {
		for _, v := range f.ValueNames() {
			sc, err := Decode([]byte("name: k\nops: 10\nexpect: pass\ncontract:\n  "+f.Name+": "+v+"\n"), "x.yaml")
			if err != nil {
				t.Errorf("contract %s: %s: %v", f.Name, v, err)
				continue
			}
			var want history.Contract
			*f.Of(&want) = v
			if sc.Contract != want {
				t.Errorf("contract %s: %s decoded as %+v", f.Name, v, sc.Contract)
			}
			base := history.Contract{}
			if got := sc.Contract.Over(base); *f.Of(&got) != v {
				t.Errorf("contract %s: %s lost over the target's: %+v", f.Name, v, got)
			}
		}
		es := decodeErrors(t, "name: k\nops: 10\nexpect: pass\ncontract:\n  "+f.Name+": bogus\n")
		wantError(t, es, 5, f.Name, f.Values[0].Name, f.Values[1].Name)
	}
}
