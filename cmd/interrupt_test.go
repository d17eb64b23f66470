package cmd

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// benchChild starts the command line in a child process, its stderr read
// line by line into lines.
func benchChild(t *testing.T, args string, env ...string) (*exec.Cmd, *bytes.Buffer, chan string) {
	t.Helper()
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(append(os.Environ(), "CHATSEQ_TEST_MAIN_ARGS="+args), env...)
	var stdout bytes.Buffer
	child.Stdout = &stdout
	stderr, err := child.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1000)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return child, &stdout, lines
}

// A child on a machine busy with other jobs (under the race detector,
// beside other engineers' builds) can take minutes to reach a step that
// takes a second alone, talking all the while: a test waits as long as it
// talks (a progress line, its history growing), and gives it up as hung
// only after childSilence without a word, or after childWaitCap in all.
const (
	childSilence = 90 * time.Second
	childWaitCap = 10 * time.Minute
)

// waitFor reads lines until one contains want, and returns every line
// read; it fails t if the child ends, falls silent for childSilence, or
// talks for childWaitCap without saying want.
func waitFor(t *testing.T, lines chan string, want string) []string {
	t.Helper()
	var seen []string
	silence := time.NewTimer(childSilence)
	defer silence.Stop()
	limit := time.After(childWaitCap)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("stderr ended before %q:\n%s", want, strings.Join(seen, "\n"))
			}
			if seen = append(seen, l); strings.Contains(l, want) {
				return seen
			}
			silence.Reset(childSilence)
		case <-silence.C:
			t.Fatalf("no %q on stderr: the child said nothing for %s:\n%s", want, childSilence, strings.Join(seen, "\n"))
		case <-limit:
			t.Fatalf("no %q on stderr in %s:\n%s", want, childWaitCap, strings.Join(seen, "\n"))
		}
	}
}

func exitCode(t *testing.T, child *exec.Cmd) int {
	t.Helper()
	return exitWithin(t, child, time.Minute)
}

// exitWithin waits for the child and returns its exit code, killing it
// and failing the test if it is still running after patience.
func exitWithin(t *testing.T, child *exec.Cmd, patience time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- child.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(patience):
		child.Process.Kill()
		<-done
		t.Fatalf("the child was still running %s after the interrupt", patience)
		return -1
	}
}

// Ctrl-C while the writers run stops them; the run so far is still
// recorded whole, checked and reported, and exits ExitInterruptedRun so CI
// cannot take it for a full run.
func TestInterruptStopsTheWritersAndStillChecks(t *testing.T) {
	hist := filepath.Join(t.TempDir(), "h.jsonl")
	child, stdout, lines := benchChild(t, "bench --duration 60s --kafka off --writers 2 --chats 2 --history "+hist)
	waitForHistory(t, child, hist, 256<<10)
	if err := child.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	waitFor(t, lines, "stopping the writers")
	waitFor(t, lines, "after the writers: recording the final state")
	waitFor(t, lines, "the report covers a shorter run than asked for (exit 6)")
	if code := exitCode(t, child); code != ExitInterruptedRun {
		t.Fatalf("exit %d, want %d: the interrupted run is correct but shorter than asked\n%s", code, ExitInterruptedRun, stdout.String())
	}
	out := stdout.String()
	if !strings.Contains(out, ", interrupted\n") || !strings.Contains(out, "ack_implies_persistence                PASS") {
		t.Fatalf("the report should say the run was interrupted and judge its final state:\n%s", out)
	}
}

// Ctrl-C after the writers (here: while the history is checked) ends the
// process at once, naming the history, which is complete.
func TestInterruptAfterTheWritersQuitsNamingTheHistory(t *testing.T) {
	hist := filepath.Join(t.TempDir(), "h.jsonl")
	child, _, lines := benchChild(t, "bench --ops 2000 --duration 0 --kafka off --writers 2 --chats 2 --history "+hist, "CHATSEQ_TEST_SLOW_CHECK=1")
	waitFor(t, lines, "checking the history")
	sent := time.Now()
	if err := child.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	seen := waitFor(t, lines, "interrupted; the history so far is "+hist)
	if code := exitCode(t, child); code != ExitInterrupted || time.Since(sent) > 10*time.Second {
		t.Fatalf("exit %d after %s, want %d at once\n%s", code, time.Since(sent), ExitInterrupted, strings.Join(seen, "\n"))
	}
	if _, err := os.Stat(hist); err != nil {
		t.Fatalf("the history named is not there: %v", err)
	}
}

// Ctrl-C while chatseq run's scenario runs: the scenario is checked and
// reported as interrupted (not pass), the summary and the JUnit file are
// still written, and run exits ExitInterruptedRun as bench does; it
// exited 5 ("could not be run") with neither.
func TestInterruptingARunSumsItUp(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "long.yaml")
	if err := os.WriteFile(file, []byte("name: long-one\ntarget: memory\nkafka: off\nwriters: 2\nchats: 2\nduration: 60s\nexpect: pass\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, junit := filepath.Join(dir, "out"), filepath.Join(dir, "junit.xml")
	child, stdout, lines := benchChild(t, "run "+file+" --out "+out+" --junit "+junit)
	waitForHistory(t, child, filepath.Join(out, "long-one", "history.jsonl"), 256<<10)
	if err := child.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	waitFor(t, lines, "run: interrupted after 1 of 1 scenarios")
	if code := exitCode(t, child); code != ExitInterruptedRun {
		t.Fatalf("exit %d, want %d\n%s", code, ExitInterruptedRun, stdout.String())
	}
	if s := stdout.String(); !strings.Contains(s, "long-one") || !strings.Contains(s, "INTERRUPTED") || !strings.Contains(s, "0 of 1 scenarios passed (1 interrupted)") {
		t.Fatalf("the summary should list the scenario as interrupted:\n%s", s)
	}
	b, err := os.ReadFile(junit)
	if err != nil || !bytes.Contains(b, []byte(`type="interrupted"`)) {
		t.Fatalf("JUnit file (err %v):\n%s", err, b)
	}
}

// Ctrl-C while --serve's service has not answered yet: no writer ran,
// and neither message says one did, nor that the service was given its
// whole readiness time (it said "stopping the writers" and "did not
// answer within 3m0s" three seconds in).
func TestInterruptWhileTheServiceStartsSaysSo(t *testing.T) {
	dir := t.TempDir()
	marker, serve := filepath.Join(dir, "started"), filepath.Join(dir, "serve.sh")
	// A service that never answers (one word: the child splits its
	// arguments on spaces).
	if err := os.WriteFile(serve, []byte("#!/bin/sh\ntouch "+marker+"\nexec sleep 40\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	child, _, lines := benchChild(t, fmt.Sprintf("bench --target http --serve %s --url http://127.0.0.1:%d --duration 3s --out %s", serve, closedPort(t), filepath.Join(dir, "out")))
	for deadline := time.Now().Add(childWaitCap); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		if time.Now().After(deadline) {
			child.Process.Kill()
			t.Fatalf("--serve's command never started")
		}
	}
	if err := child.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	seen := strings.Join(waitFor(t, lines, "was stopped before it answered"), "\n")
	if strings.Contains(seen, "stopping the writers") || strings.Contains(seen, "did not answer") || !strings.Contains(seen, "interrupted before the writers started") {
		t.Fatalf("stderr:\n%s", seen)
	}
	if code := exitCode(t, child); code != ExitInterrupted {
		t.Fatalf("exit %d, want %d", code, ExitInterrupted)
	}
}
