package cmd

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

// --version says which build this is and exits 0, printing nothing else.
func TestVersion(t *testing.T) {
	code, out, errOut := run(t, "--version")
	if code != ExitOK || !strings.HasPrefix(out, "chatseq ") || !strings.HasSuffix(out, " "+runtime.Version()+"\n") || errOut != "" {
		t.Fatalf("--version: exit %d, stdout %q, stderr %q; want 0 and chatseq VERSION %s", code, out, errOut, runtime.Version())
	}
}

// A command given --format json that ends in an error before printing its
// JSON prints a JSON error object on stdout, with the exit status, so a
// script reading stdout always gets JSON; other formats print nothing
// there.
func TestFormatJSONPrintsAnErrorObject(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"bench", "--format", "json", "--duration", "300ms", "--schedule", "{fault: store_stall, at: 0s, for: 1h}"}, ExitBadInput},
		{[]string{"bench", "--target", "http", "--serve", "false", "--format", "json", "--duration", "300ms", "--quiet"}, ExitRunError},
		{[]string{"check", "/no/such/history.jsonl", "--format", "json"}, ExitBadInput},
	} {
		code, out, errOut := run(t, c.args...)
		var got jsonError
		if err := json.Unmarshal([]byte(out), &got); err != nil || code != c.code || got.ExitCode != c.code || got.Error == "" || !strings.Contains(errOut, got.Error) {
			t.Errorf("%v: exit %d, stdout %q (%v); want %d and {\"error\": …, \"exit_code\": %d}", c.args, code, out, err, c.code, c.code)
		}
	}
	if code, out, _ := run(t, "check", "/no/such/history.jsonl"); code != ExitBadInput || out != "" {
		t.Errorf("without --format json: exit %d, stdout %q; want 2 and nothing", code, out)
	}
}
