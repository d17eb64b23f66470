package cmd

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
)

// interruptPatience bounds how long a bench may take to exit after Ctrl-C.
// It promises 5 s; the bound is looser for a loaded machine, and still a
// third of the minute a read-back once hung for.
const interruptPatience = 20 * time.Second

// interrupt sends the child SIGINT and returns its exit code and every
// line of its stderr, failing the test if it takes longer than
// interruptPatience to exit.
func interrupt(t *testing.T, child *exec.Cmd, lines chan string) (int, []string) {
	t.Helper()
	sent := time.Now()
	if err := child.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	code := exitWithin(t, child, interruptPatience)
	if took := time.Since(sent); took > interruptPatience {
		t.Errorf("exited %s after the interrupt, want within %s", took.Round(time.Millisecond), interruptPatience)
	} else {
		t.Logf("exited %s after the interrupt", took.Round(time.Millisecond))
	}
	var seen []string
	for l := range lines {
		seen = append(seen, l)
	}
	return code, seen
}

// lastLine is the file's last line.
func lastLine(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.TrimRight(b, "\n")
	return string(b[bytes.LastIndexByte(b, '\n')+1:])
}

// Ctrl-C while the writers of a default run (embedded Kafka) run stops
// them, and the shorter run is read back, checked and reported: exit 6,
// or 1 when an invariant failed, the history ended by its end line. The
// read-back once waited a minute for a topic tail the interrupt had
// cancelled, and exited 5 without a report.
func TestInterruptADefaultRunWhileTheWritersRun(t *testing.T) {
	for _, c := range []struct {
		name, args, verdict string
		code                int
	}{
		{"correct", "", "verdict: PASS", ExitInterruptedRun},
		{"racy-counter", " --broken racy-counter", "verdict: FAIL", ExitViolation},
	} {
		t.Run(c.name, func(t *testing.T) {
			hist := filepath.Join(t.TempDir(), "h.jsonl")
			child, stdout, lines := benchChild(t, "bench --duration 60s --writers 2 --chats 8"+c.args+" --history "+hist)
			waitForHistory(t, child, hist, 256<<10)
			code, seen := interrupt(t, child, lines)
			out := stdout.String()
			if code != c.code || !strings.Contains(out, ", interrupted\n") || !strings.Contains(out, c.verdict) || !strings.Contains(out, "in-process kfake") {
				t.Fatalf("exit %d, want %d with the shorter run reported (%q):\nstdout:\n%s\nstderr:\n%s", code, c.code, c.verdict, out, strings.Join(seen, "\n"))
			}
			if l := lastLine(t, hist); l != `{"type":"end"}` {
				t.Fatalf("the history ends with %s, want its end line", l)
			}
		})
	}
}

// Ctrl-C after the writers of a default run, whichever step it lands in,
// quits at once (exit 130), naming the history for 'chatseq check'. Each
// step is made to last a minute, so that the interrupt surely lands in it.
func TestInterruptADefaultRunAfterTheWriters(t *testing.T) {
	for _, c := range []struct{ step, env string }{
		{bench.PhaseFinalState, "CHATSEQ_TEST_SLOW_PHASE=" + bench.PhaseFinalState},
		{bench.PhaseEvents, "CHATSEQ_TEST_SLOW_PHASE=" + bench.PhaseEvents},
		{phaseCheck, "CHATSEQ_TEST_SLOW_CHECK=1"},
	} {
		t.Run(c.step, func(t *testing.T) {
			hist := filepath.Join(t.TempDir(), "h.jsonl")
			child, _, lines := benchChild(t, "bench --ops 4000 --duration 0 --writers 2 --chats 8 --history "+hist, c.env)
			waitFor(t, lines, c.step)
			code, seen := interrupt(t, child, lines)
			if code != ExitInterrupted || !strings.Contains(strings.Join(seen, "\n"), "interrupted; the history so far is "+hist) {
				t.Fatalf("exit %d, want %d naming the history:\n%s", code, ExitInterrupted, strings.Join(seen, "\n"))
			}
		})
	}
}

// Ctrl-C that quits at once stops the service --serve started: left
// running, it held its port, and the next run drove it as its own.
func TestInterruptThatQuitsStopsTheServedService(t *testing.T) {
	dir := t.TempDir()
	port := closedPort(t)
	script := filepath.Join(dir, "serve.sh")
	body := fmt.Sprintf("#!/bin/sh\nCHATSEQ_TEST_MAIN_ARGS='serve --listen 127.0.0.1:%d' exec '%s' -test.run='^$'\n", port, os.Args[0])
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	hist := filepath.Join(dir, "h.jsonl")
	child, _, lines := benchChild(t, "bench --target http --serve "+script+" --ops 400 --duration 0 --writers 2 --chats 2 --history "+hist,
		"CHATSEQ_TEST_SLOW_PHASE="+bench.PhaseFinalState)
	waitFor(t, lines, bench.PhaseFinalState)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	if !listening(addr) {
		t.Fatalf("nothing listens at %s while the run records its final state", addr)
	}
	code, seen := interrupt(t, child, lines)
	if code != ExitInterrupted {
		t.Fatalf("exit %d, want %d:\n%s", code, ExitInterrupted, strings.Join(seen, "\n"))
	}
	deadline := time.Now().Add(10 * time.Second)
	for listening(addr) {
		if time.Now().After(deadline) {
			t.Fatalf("the service --serve started still listens at %s 10 s after bench quit", addr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// listening reports whether something accepts connections at addr.
func listening(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}
