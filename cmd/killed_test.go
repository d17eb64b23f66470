package cmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/history"
)

// TestMain lets a test run the command line in a child process, which a
// test can then kill.
func TestMain(m *testing.M) {
	if args := os.Getenv("CHATSEQ_TEST_MAIN_ARGS"); args != "" {
		if os.Getenv("CHATSEQ_TEST_SLOW_CHECK") != "" {
			beforeCheck = func() { time.Sleep(time.Minute) }
		}
		if slow := os.Getenv("CHATSEQ_TEST_SLOW_PHASE"); slow != "" {
			atPhase = func(name string) {
				if name == slow {
					time.Sleep(time.Minute)
				}
			}
		}
		os.Exit(runProcess(strings.Fields(args), os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// A run killed mid-way still leaves a history that parses and checks.
func TestKilledRunLeavesACheckableHistory(t *testing.T) {
	hist := filepath.Join(t.TempDir(), "h.jsonl")
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), "CHATSEQ_TEST_MAIN_ARGS=bench --duration 60s --kafka off --writers 4 --chats 4 --history "+hist)
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	waitForHistory(t, child, hist, 1<<20)
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	child.Wait()

	h, err := history.ReadFile(hist)
	if err != nil {
		t.Fatalf("the killed run's history does not parse: %v", err)
	}
	if len(h.Events) < 1000 || len(h.Finals) != 0 {
		t.Fatalf("read %d events and %d finals from a run killed mid-way", len(h.Events), len(h.Finals))
	}
	rep := checker.Check(h, checker.Options{})
	if rep.Valid != nil && !*rep.Valid {
		t.Fatalf("a correct run, killed, was judged invalid: %+v", rep.Invariants)
	}
	if inv, ok := rep.Result(checker.NameAckImpliesPersistence); !ok || inv.Status != checker.Unknown {
		t.Fatalf("without final state ack_implies_persistence must be unknown, got %+v (reported: %v)", inv, ok)
	}
}

// waitForHistory waits until the child's history holds more than size
// bytes, as long as it grows: it kills the child and fails t if the
// history stays the same size for childSilence, or after childWaitCap.
func waitForHistory(t *testing.T, child *exec.Cmd, hist string, size int64) {
	t.Helper()
	began := time.Now()
	lastSize, grew := int64(-1), began
	for {
		fi, err := os.Stat(hist)
		if err == nil && fi.Size() > size {
			return
		}
		now := time.Now()
		if err == nil && fi.Size() > lastSize {
			lastSize, grew = fi.Size(), now
		}
		if now.Sub(grew) > childSilence || now.Sub(began) > childWaitCap {
			child.Process.Kill()
			t.Fatalf("the history never grew past %d bytes: %d bytes after %s, the last growth %s ago",
				size, max(lastSize, 0), now.Sub(began).Round(time.Millisecond), now.Sub(grew).Round(time.Millisecond))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
