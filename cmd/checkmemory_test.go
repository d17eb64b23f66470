package cmd

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// onMachine runs f as if this were a machine of total bytes with the
// runtime's limit at limit (as limitMemory or GOMEMLIMIT would set it).
func onMachine(t *testing.T, total, limit int64, f func()) {
	t.Helper()
	before, saved := debug.SetMemoryLimit(limit), machineMemory
	defer func() { debug.SetMemoryLimit(before); machineMemory = saved }()
	machineMemory = func() (uint64, error) { return uint64(total), nil }
	f()
}

// A history whose check would need more memory than the machine has is
// not read: bench reports the run's own figures and check stops, both
// saying why and how to check it elsewhere, and both exit 3 (undecided)
// with the history whole. Where the memory suffices, or the user raised
// the limit past the machine, the check runs.
func TestAHistoryTooLargeForTheMachineIsNotChecked(t *testing.T) {
	hist := filepath.Join(t.TempDir(), "h.jsonl")
	small := []string{"--ops", "300", "--duration", "0", "--writers", "3", "--chats", "2", "--kafka", "off", "--history", hist}
	const mib = 1 << 20
	// The check needs the default --lin-memory (768 MiB) and then some.
	onMachine(t, 512*mib, 400*mib, func() {
		code, out, errOut := run(t, append([]string{"bench", "--threshold", "throughput > 0", "--threshold", "late_commits == 0"}, small...)...)
		if code != ExitUnknown || !strings.Contains(out, "more than the 512 MiB") || !strings.Contains(out, "chatseq check "+hist) {
			t.Fatalf("bench on a 512 MiB machine: exit %d, want 3 naming the memory and the way out\n%s\n%s", code, out, errOut)
		}
		for _, want := range []string{"operations ", "allocate ", "gap rate ", "verdict: UNKNOWN"} {
			if !strings.Contains(out, want) {
				t.Fatalf("the unchecked run's report lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, " 0 gaps in") || strings.Contains(out, "invariant  verdict") {
			t.Fatalf("the unchecked run's report shows the check's gap count or an empty invariants table:\n%s", out)
		}
		if !strings.Contains(out, "late_commits == 0") || !strings.Contains(out, "no data") {
			t.Fatalf("a threshold on what only the check knows should have no data:\n%s", out)
		}
		if fi, err := os.Stat(hist); err != nil || fi.Size() == 0 {
			t.Fatalf("the unchecked run's history is gone: %v", err)
		}
		code, out, errOut = run(t, "check", hist)
		if code != ExitUnknown || !strings.Contains(out, "GOMEMLIMIT") || !strings.Contains(out, "verdict: UNKNOWN") || strings.Contains(out, "PASS") {
			t.Fatalf("check on a 512 MiB machine: exit %d, want 3, the reason and no invariant judged\n%s\n%s", code, out, errOut)
		}
		code, out, _ = run(t, "check", hist, "--format", "json")
		if code != ExitUnknown || !strings.Contains(out, `"valid": null`) || !strings.Contains(out, `"invariants": []`) || !strings.Contains(out, "more than the 512 MiB") {
			t.Fatalf("check --format json on a 512 MiB machine: exit %d\n%s", code, out)
		}
		code, _, errOut = run(t, "check", hist, "--lin-memory", "16MiB")
		if code != ExitOK {
			t.Fatalf("check with a 16 MiB porcupine budget fits 512 MiB: exit %d\n%s", code, errOut)
		}
	})
	onMachine(t, 512*mib, 4096*mib, func() { // GOMEMLIMIT=4GiB: the user's call
		if code, _, errOut := run(t, "check", hist); code != ExitOK {
			t.Fatalf("check with the limit raised past the machine: exit %d\n%s", code, errOut)
		}
	})
	onMachine(t, 64<<30, 50<<30, func() {
		if code, out, errOut := run(t, append([]string{"bench"}, small...)...); code != ExitOK || !strings.Contains(out, "verdict: PASS") {
			t.Fatalf("bench on a 64 GiB machine: exit %d\n%s\n%s", code, out, errOut)
		}
	})
}

// On a machine too small for the run, bench stops the writers early, says
// so in the report, and does not try to check what it cannot hold.
func TestBenchStopsItsWritersOnAMachineTooSmall(t *testing.T) {
	hist := filepath.Join(t.TempDir(), "h.jsonl")
	onMachine(t, 4<<20, 4<<20, func() {
		code, out, errOut := run(t, "bench", "--duration", "1m", "--writers", "2", "--chats", "2", "--kafka", "off", "--history", hist)
		if code != ExitUnknown || !strings.Contains(out, "stopped early: the process held") || !strings.Contains(out, "verdict: UNKNOWN") {
			t.Fatalf("bench on a 4 MiB machine: exit %d, want 3 with the writers stopped early\n%s\n%s", code, out, errOut)
		}
	})
}
