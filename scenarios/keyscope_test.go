package scenarios

import (
	"testing"

	"github.com/chatseq/chatseq/history"
)

// A scenario may state key_scope; the target's stands otherwise, and an
// unknown value is an error at its line.
func TestScenarioKeyScope(t *testing.T) {
	sc, err := Decode([]byte("name: k\nops: 10\nexpect: pass\ncontract: {key_scope: client}\n"), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if sc.Contract.KeyScope != history.KeyScopeClient {
		t.Errorf("key_scope decoded as %q", sc.Contract.KeyScope)
	}
	base := history.Contract{KeyScope: history.KeyScopeChat}
	if c := sc.Contract.Over(base); c.KeyScope != history.KeyScopeClient {
		t.Errorf("merged key_scope %q", c.KeyScope)
	}
	if c := (history.Contract{}).Over(base); c.KeyScope != history.KeyScopeChat {
		t.Errorf("the target's key_scope lost: %q", c.KeyScope)
	}
	es := decodeErrors(t, "name: k\nops: 10\nexpect: pass\ncontract:\n  key_scope: user\n")
	wantError(t, es, 5, "key_scope")
}
