package cmd

import (
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
