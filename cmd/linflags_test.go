package cmd

import (
	"path/filepath"
	"strings"
	"testing"
)

// --lin-memory decides how large a chat porcupine tries: the same history
// is undecided in 1 MiB and linearizable in 64 MiB.
func TestLinMemoryDecidesHowLargeAChatPorcupineTries(t *testing.T) {
	hist := filepath.Join(t.TempDir(), "h.jsonl")
	code, out, errOut := run(t, "bench", "--quiet", "--kafka", "off", "--chats", "1", "--writers", "4", "--ops", "3000", "--duration", "0",
		"--history", hist, "--lin-checker", "porcupine", "--lin-memory", "1MiB")
	if code != ExitUnknown || !strings.Contains(out, "1 chat too large for porcupine") || !strings.Contains(out, "the most a 1 MB share allows") {
		t.Fatalf("bench --lin-memory 1MiB: exit %d, want %d with the chat too large\n%s%s", code, ExitUnknown, out, errOut)
	}
	code, out, errOut = run(t, "check", hist, "--lin-checker", "porcupine", "--lin-memory", "64MiB")
	if code != ExitOK || !strings.Contains(out, "1 chat with") || !strings.Contains(out, "by porcupine") {
		t.Fatalf("check --lin-memory 64MiB: exit %d, want 0 with the chat linearizable\n%s%s", code, out, errOut)
	}
	// The exact checker, the default, needs no budget.
	code, out, errOut = run(t, "check", hist, "--lin-memory", "1MiB")
	if code != ExitOK || !strings.Contains(out, "linearizable (decided exactly)") {
		t.Fatalf("check with the exact checker: exit %d, want 0 with the chat linearizable\n%s%s", code, out, errOut)
	}
	code, _, errOut = run(t, "check", hist, "--lin-checker", "wgl")
	if code != ExitBadInput || !strings.Contains(errOut, "--lin-checker must be exact or porcupine") {
		t.Fatalf("check --lin-checker wgl: exit %d\n%s", code, errOut)
	}
}
