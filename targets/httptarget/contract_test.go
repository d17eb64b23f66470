package httptarget

import (
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history"
)

// An --api mapping's contract: spells every field as the header does. A
// field the service states takes each of its values into the run's
// contract; another value is an error at its line; a field target http
// fixes is refused; a field left out takes the table's default, but for
// one whose default hangs on events lines, which the checker decides.
func TestMappingContractEveryField(t *testing.T) {
	for _, f := range history.ContractFields {
		if !f.MappingStates {
			_, err := ParseAPI("m.yaml", []byte("contract:\n  "+f.Name+": "+f.Values[0].Name+"\n"))
			if want := "m.yaml:2: contract." + f.Name + ": a mapping states only"; err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("mapping states %s: %v", f.Name, err)
			}
			continue
		}
		for _, v := range f.ValueNames() {
			api, err := ParseAPI("m.yaml", []byte("contract:\n  "+f.Name+": "+v+"\n"))
			if err != nil {
				t.Errorf("mapping %s: %s: %v", f.Name, v, err)
				continue
			}
			if c := api.contract(); *f.Of(&c) != v {
				t.Errorf("mapping %s: %s gave the contract %+v", f.Name, v, c)
			}
		}
		_, err := ParseAPI("m.yaml", []byte("contract:\n  "+f.Name+": bogus\n"))
		if want := "m.yaml:2: contract." + f.Name + " must be " + f.Choices(false, "or"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("mapping %s: bogus: %v", f.Name, err)
		}
	}
	// A mapping stating no contract over the documented API (which tells
	// the service who calls: a mapping that tells it no one states
	// send_membership unchecked, TestHTTPTargetStatesItsSendMembership).
	api := DefaultAPI()
	api.Contract = history.Contract{}
	c := api.contract()
	for _, f := range history.ContractFields {
		want := f.Default
		if f.DefaultWithEvents != "" {
			want = ""
		}
		if got := *f.Of(&c); got != want {
			t.Errorf("a mapping without %s: %q, want %q", f.Name, got, want)
		}
	}
}
