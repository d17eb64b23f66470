package cmd

import (
	"strings"
	"testing"
)

// The guard refuses before any connection is made, so these need no server.
func TestRemoteGuardRefusesNonLocalTargets(t *testing.T) {
	t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", "")
	t.Setenv("AWS_ENDPOINT_URL", "")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"recover", "--chat", "c", "--endpoint", "http://10.1.2.3:8000"}, "--allow-remote"},
		{[]string{"recover", "--chat", "c", "--endpoint", "https://dynamodb.us-east-1.amazonaws.com"}, "--allow-remote"},
		{[]string{"recover", "--chat", "c"}, "AWS (no endpoint given)"},
		{[]string{"recover", "--chat", "c", "--allow-remote", "--table-prefix", ""}, "--table-prefix must not be empty"},
		{[]string{"drill", "counter-recovery", "--store", "dynamodb", "--endpoint", "http://db.internal:8000"}, "--allow-remote"},
		{[]string{"drill", "unsafe-recovery", "--store", "dynamodb"}, "AWS (no endpoint given)"},
		{[]string{"drill", "counter-recovery", "--store", "dynamodb", "--allow-remote", "--table-prefix", ""}, "--table-prefix must not be empty"},
	}
	for _, c := range cases {
		code, out, errOut := chatseq(t, c.args...)
		if code != ExitBadInput || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %q", c.args, code, errOut, c.want)
		}
		if out != "" {
			t.Errorf("%v: printed %q before refusing", c.args, out)
		}
	}
}

// A configured endpoint variable counts as the endpoint: a remote one is
// refused like a flag would be.
func TestRemoteGuardReadsTheEndpointEnvironment(t *testing.T) {
	t.Setenv("AWS_ENDPOINT_URL", "")
	t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", "http://10.9.9.9:8000")
	code, _, errOut := chatseq(t, "recover", "--chat", "c")
	if code != ExitBadInput || !strings.Contains(errOut, "10.9.9.9") {
		t.Fatalf("exit %d, stderr %q; want the environment's endpoint refused", code, errOut)
	}
}

func TestRecoverAndSetupBadFlagsExitTwo(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"recover"}, "--chat is required"},
		{[]string{"recover", "--chat", "c", "--store", "memory"}, "--store memory keeps nothing"},
		{[]string{"recover", "--chat", "c", "--store", "dynamodb-local"}, "--store dynamodb-local starts a throwaway"},
		{[]string{"setup", "--store", "dynamodb-local"}, "--store dynamodb-local starts a throwaway"},
		{[]string{"setup", "--store", "memory"}, "nothing to set up"},
		{[]string{"setup", "--table-prefix", ""}, "--table-prefix must not be empty"},
		{[]string{"teardown", "--table-prefix", ""}, "--table-prefix must not be empty"},
		{[]string{"teardown", "--store", "memory"}, "nothing to tear down"},
		{[]string{"setup", "extra-arg"}, "unknown command"},
	}
	for _, c := range cases {
		code, _, errOut := chatseq(t, c.args...)
		if code != ExitBadInput || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %q", c.args, code, errOut, c.want)
		}
	}
}
