package report

import (
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history"
)

// The settings' contract row names every field as prose does, with its
// value, or the default the checker applied when a results file from
// before the field lacks it.
func TestContractRowNamesEveryField(t *testing.T) {
	for _, f := range history.ContractFields {
		var c history.Contract
		*f.Of(&c) = f.Values[1].Name
		if got, want := contractText(c), f.Prose+" "+f.Values[1].Name; !strings.Contains(got, want) {
			t.Errorf("contract row %q lacks %q", got, want)
		}
		if got, want := contractText(history.Contract{}), f.Prose+" "+f.Default; !strings.Contains(got, want) {
			t.Errorf("contract row %q lacks %q", got, want)
		}
	}
}
