package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/report"
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

// --out into a directory that holds something (a baseline kept to compare
// with) is refused unless --force says it may be replaced; a new or empty
// directory needs nothing.
func TestBenchOutRefusesToReplaceWithoutForce(t *testing.T) {
	base := filepath.Join(t.TempDir(), "baseline")
	args := []string{"bench", "--ops", "100", "--duration", "0", "--kafka", "off", "--quiet", "--out", base}
	if code, _, errOut := run(t, args...); code != ExitOK {
		t.Fatalf("into a new directory: exit %d\n%s", code, errOut)
	}
	before, err := os.ReadFile(filepath.Join(base, report.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	code, _, errOut := run(t, args...)
	if code != ExitBadInput || !strings.Contains(errOut, "--out "+base+" is not empty: it holds a previous run's results; give a new or empty directory, or --force to replace them") {
		t.Fatalf("into the baseline: exit %d, want 2\n%s", code, errOut)
	}
	if after, _ := os.ReadFile(filepath.Join(base, report.ResultsFile)); !bytes.Equal(after, before) {
		t.Fatal("a refused run changed the baseline's results.json")
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run(t, "bench", "--ops", "100", "--duration", "0", "--kafka", "off", "--quiet", "--out", other); code != ExitBadInput || !strings.Contains(errOut, "it holds files (notes.txt, …)") {
		t.Fatalf("into a directory of other files: exit %d, want 2\n%s", code, errOut)
	}
	if code, _, errOut := run(t, append(args, "--force")...); code != ExitOK {
		t.Fatalf("with --force: exit %d\n%s", code, errOut)
	}
	if code, _, errOut := run(t, "bench", "--ops", "100", "--duration", "0", "--kafka", "off", "--quiet", "--out", t.TempDir()); code != ExitOK {
		t.Fatalf("into an empty directory: exit %d\n%s", code, errOut)
	}
}
