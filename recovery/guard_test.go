package recovery

import (
	"strings"
	"testing"
)

func TestCheckTarget(t *testing.T) {
	cases := []struct {
		endpoint    string
		allowRemote bool
		prefix      string
		refused     string // substring of the error; "" means allowed
	}{
		{"http://localhost:8000", false, "", ""},
		{"http://127.0.0.1:8000", false, "chatseq_", ""},
		{"http://[::1]:8000", false, "chatseq_", ""},
		{"HTTP://LOCALHOST:8000", false, "chatseq_", ""},
		{"", false, "chatseq_", "AWS (no endpoint given)"},
		{"https://dynamodb.eu-west-1.amazonaws.com", false, "chatseq_", "--allow-remote"},
		{"http://scylla.internal:8000", false, "chatseq_", "--allow-remote"},
		{"http://127.0.0.2:8000", false, "chatseq_", "--allow-remote"},
		{"http://localhost.evil.example:8000", false, "chatseq_", "--allow-remote"},
		{"localhost:8000", false, "chatseq_", "--allow-remote"}, // no scheme: not a URL we can vouch for
		{"", true, "chatseq_", ""},
		{"http://scylla.internal:8000", true, "drill_", ""},
		{"", true, "", "empty --table-prefix"},
		{"http://scylla.internal:8000", true, "", "empty --table-prefix"},
	}
	for _, c := range cases {
		err := CheckTarget(c.endpoint, c.allowRemote, c.prefix)
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("CheckTarget(%q, %v, %q) = %v, want allowed", c.endpoint, c.allowRemote, c.prefix, err)
		case c.refused != "" && (err == nil || !strings.Contains(err.Error(), c.refused)):
			t.Errorf("CheckTarget(%q, %v, %q) = %v, want a refusal mentioning %q", c.endpoint, c.allowRemote, c.prefix, err, c.refused)
		}
	}
}
