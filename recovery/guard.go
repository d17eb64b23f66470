package recovery

import (
	"fmt"
	"net/url"
	"strings"
)

// LocalEndpoint reports whether endpoint is on this machine by name:
// localhost, 127.0.0.1 or [::1]. An empty endpoint is AWS itself, and other
// loopback spellings are refused too: the guard errs on the side of asking.
func LocalEndpoint(endpoint string) bool {
	if endpoint == "" {
		return false
	}
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return false
	}
	switch strings.ToLower(u.Hostname()) {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}

// CheckTarget is the guard in front of every command that writes counters
// (recover, the drills on --store dynamodb): a local endpoint is always
// allowed; anything else — including real AWS, reached with no endpoint —
// needs allowRemote, and then a non-empty table prefix so the write can only
// touch chatseq's own tables. endpoint is the endpoint the client will use.
func CheckTarget(endpoint string, allowRemote bool, tablePrefix string) error {
	if LocalEndpoint(endpoint) {
		return nil
	}
	where := "AWS (no endpoint given)"
	if endpoint != "" {
		where = "the non-local endpoint " + endpoint
	}
	if !allowRemote {
		return fmt.Errorf("refusing to write counters on %s: pass --allow-remote to confirm (only localhost, 127.0.0.1 and [::1] are allowed without it)", where)
	}
	if tablePrefix == "" {
		return fmt.Errorf("refusing to write counters on %s with an empty --table-prefix: --allow-remote needs a prefix that names chatseq's own tables", where)
	}
	return nil
}
