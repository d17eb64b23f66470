package httptarget_test

import (
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/targets"
	"github.com/chatseq/chatseq/targets/httptarget"
)

// A service's key scope is chat unless its mapping or --key-scope says
// client; a mapping's unknown scope is an error at its line.
func TestHTTPTargetStatesItsKeyScope(t *testing.T) {
	if c := openedContractWith(t, targets.Options{}); c.KeyScope != history.KeyScopeChat {
		t.Errorf("default key_scope %q, want chat", c.KeyScope)
	}
	if c := openedContractWith(t, targets.Options{Contract: history.Contract{KeyScope: history.KeyScopeClient}}); c.KeyScope != history.KeyScopeClient {
		t.Errorf("--key-scope client gave %q", c.KeyScope)
	}
	api, err := httptarget.ParseAPI("m.yaml", []byte("contract:\n  key_scope: client\n"))
	if err != nil || api.Contract.KeyScope != history.KeyScopeClient {
		t.Errorf("mapping key_scope client read as %+v, %v", api.Contract, err)
	}
	_, err = httptarget.ParseAPI("m.yaml", []byte("contract:\n  key_scope: user\n"))
	if want := "m.yaml:2: contract.key_scope must be chat, client or sender"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want one containing %q", err, want)
	}
}

// chatseq serve states its target's key scope: ADR-004's core scopes keys
// per chat.
func TestServeStatesItsKeyScope(t *testing.T) {
	if s := startServer(t, sequencer.Correct, false); s.Contract.KeyScope != history.KeyScopeChat {
		t.Errorf("serve --target memory states key_scope %q", s.Contract.KeyScope)
	}
}
