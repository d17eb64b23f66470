package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHTTPTargetFlagsExitTwoWithTheProblemNamed(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "api.yaml")
	if err := os.WriteFile(bad, []byte("send:\n  bogus: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--target", "http"}, "--target http needs --url URL"},
		{[]string{"bench", "--target", "http", "--url", "http://127.0.0.1:1", "--api", bad}, bad + ":2: field bogus not found"},
		{[]string{"bench", "--target", "http", "--url", "http://127.0.0.1:1", "--kill-every", "1s"}, "--kill-every needs --serve CMD"},
		{[]string{"bench", "--target", "http", "--serve", "true", "--kill-every", "1s", "--duration", "0", "--ops", "5"}, "--kill-every needs a --duration"},
		{[]string{"serve", "--target", "http"}, "--target: unknown target \"http\""},
		{[]string{"serve", "--broken", "nope"}, "has no variant \"nope\""},
	}
	for _, c := range cases {
		code, _, errOut := run(t, c.args...)
		if code != ExitBadInput || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 naming %q", c.args, code, errOut, c.want)
		}
	}
}
