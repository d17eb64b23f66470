package httptarget_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/targets"
	"github.com/chatseq/chatseq/targets/httptarget"
)

// The http target states send_membership as the mapping says, checked by
// default (chatseq's API refuses a non-member's send: 403), and unchecked
// for a mapping that tells the service no one's identity (no user header,
// no sender field): such a service cannot refuse a non-member, and
// judging it so would be a false FAIL.
func TestHTTPTargetStatesItsSendMembership(t *testing.T) {
	// No user header (a device names its user in the handshake's query).
	const noUser = "user_header: \"\"\npush:\n  user_param: user\n"
	for _, tc := range []struct {
		name, mapping, want string
	}{
		{"chatseq's API", "", history.SendMembershipChecked},
		{"stated unchecked", "contract:\n  send_membership: unchecked\n", history.SendMembershipUnchecked},
		{"no identity", noUser + "send:\n  sender_field: \"\"\n", history.SendMembershipUnchecked},
		{"the sender in the body", noUser, history.SendMembershipChecked},
		{"no identity, stated checked", "contract:\n  send_membership: checked\n" + noUser + "send:\n  sender_field: \"\"\n", history.SendMembershipChecked},
	} {
		if got := openedContract(t, tc.mapping).SendMembership; got != tc.want {
			t.Errorf("%s: send_membership %q, want %q", tc.name, got, tc.want)
		}
	}
}

// openedContract is the contract the http target states over a service
// described by mapping ("": chatseq's API).
func openedContract(t *testing.T, mapping string) history.Contract {
	t.Helper()
	var o targets.Options
	if mapping != "" {
		o.API = filepath.Join(t.TempDir(), "api.yaml")
		if err := os.WriteFile(o.API, []byte(mapping), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return openedContractWith(t, o)
}

// openedContractWith is the contract the http target states when opened
// with o (its URL set to one Open reaches nothing at).
func openedContractWith(t *testing.T, o targets.Options) history.Contract {
	t.Helper()
	o.URL = "http://127.0.0.1:9" // Open reaches nothing
	opened, err := targets.Open(context.Background(), httptarget.Name, o)
	if err != nil {
		t.Fatal(err)
	}
	defer opened.Close()
	return opened.Contract
}

// chatseq's API streams from the 101 on (docs/http-api.md): the http
// target states stream_start at-connect for it, so stream_completeness
// owes a connection what was sent right after it opened (a served channel
// that began streaming 0.9 s late passed under a second's allowance). A
// service's own mapping is given the second, unless it states at-connect.
func TestHTTPTargetStatesWhenItsStreamStarts(t *testing.T) {
	for _, tc := range []struct {
		name, mapping, want string
	}{
		{"chatseq's API", "", history.StreamStartAtConnect},
		{"a mapping that says nothing of it", "contract:\n  key_scope: chat\n", history.StreamStartWithinASecond},
		{"a mapping stating at-connect", "contract:\n  stream_start: at-connect\n", history.StreamStartAtConnect},
	} {
		if got := openedContract(t, tc.mapping).StreamStart; got != tc.want {
			t.Errorf("%s: stream_start %q, want %q", tc.name, got, tc.want)
		}
	}
}
