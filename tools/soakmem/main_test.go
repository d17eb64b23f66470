package main

import (
	"bytes"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestProgressOps(t *testing.T) {
	for line, want := range map[string]int64{
		"progress: http  5.00s/1m0s  10394 ops  2.2k ops/s  p99 186ms  faults 0  55.0s left": 10394,
		"progress: http  1m0s/1m0s  124246 ops  writers done":                                124246,
	} {
		if got, ok := progressOps(line); !ok || got != want {
			t.Errorf("progressOps(%q) = %d, %v; want %d", line, got, ok, want)
		}
	}
	for _, line := range []string{"progress: http  checking the history…", "warning: 12 ops dropped", ""} {
		if n, ok := progressOps(line); ok {
			t.Errorf("progressOps(%q) = %d, want none", line, n)
		}
	}
}

func TestGrowthFromWarm(t *testing.T) {
	s := []sample{
		{at: 30 * time.Second, rss: 50 << 20, ops: 1000},
		{at: 60 * time.Second, rss: 100 << 20, ops: 2000}, // first at warm
		{at: 90 * time.Second, rss: 101 << 20, ops: 100000},
		{at: 120 * time.Second, rss: 102 << 20, ops: 200000},
	}
	perOp, from, to, ok := growth(s, time.Minute)
	if !ok || from.at != 60*time.Second || to.at != 120*time.Second {
		t.Fatalf("growth: ok %v, from %v to %v; want 60s to 120s", ok, from.at, to.at)
	}
	if want := float64(2<<20) / 198000; perOp != want {
		t.Errorf("growth = %v bytes/op, want %v", perOp, want)
	}
	if _, _, _, ok := growth(s[:2], time.Minute); ok {
		t.Error("growth from a single sample after warm: want none")
	}
}

func TestParseRefusesBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"-bin", "x", "-warm", "2m", "-duration", "1m"},
		{"-bin", "x", "-rate", "0"},
	} {
		if _, err := parse(args); err == nil {
			t.Errorf("parse(%q): want an error", args)
		}
	}
	o, err := parse([]string{"-bin", "x", "--", "--online=false"})
	if err != nil || len(o.extra) != 1 || o.extra[0] != "--online=false" {
		t.Errorf("parse with bench arguments: %+v, %v", o, err)
	}
}

// The service is started without the profile variables, so that only
// bench writes the profile file they name (both writing it at once left
// it corrupt); everything else passes through.
func TestServeEnvHasNoProfiles(t *testing.T) {
	env := withoutProfiles([]string{"CHATSEQ_HEAPPROFILE=/tmp/h", "CHATSEQ_HEAPPROFILE_AT=100s", "CHATSEQ_CPUPROFILE=/tmp/c", "CHATSEQ_TIMINGS=1", "PATH=/bin"})
	if len(env) != 2 || env[0] != "CHATSEQ_TIMINGS=1" || env[1] != "PATH=/bin" {
		t.Fatalf("serve's environment %q, want CHATSEQ_TIMINGS and PATH only", env)
	}
}

// A server already on -listen would answer bench in place of the one
// soakmem starts, and be measured: soakmem refuses, exit 2, before it
// starts anything.
func TestRefusesAnAddressInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var out bytes.Buffer
	code, err := run([]string{"-bin", "/nonexistent/chatseq", "-listen", l.Addr().String(), "-dir", t.TempDir(), "-duration", "2s", "-warm", "1s"}, &out)
	if code != 2 || err == nil || !strings.Contains(err.Error(), "something already listens there") {
		t.Fatalf("exit %d, %v; want 2 naming the address in use", code, err)
	}
}

// A service that exits before it listens (its port taken, say) ends the
// wait at once, with the reason, rather than after the whole timeout.
func TestWaitListeningStopsWhenTheServiceExits(t *testing.T) {
	cmd := exec.Command("false")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // free: nothing will listen there
	began := time.Now()
	err = waitListening(addr, time.Minute, exited)
	if err == nil || !strings.Contains(err.Error(), "exited before listening") || time.Since(began) > 30*time.Second {
		t.Fatalf("%v after %s; want the exit, long before the minute", err, time.Since(began))
	}
	if got := <-exited; got == nil {
		t.Error("the exit's error was not put back for the caller's wait")
	}
}

// The peak is the child's high-water mark (rusage), not the highest
// sample: the final state and the check come after the last sample.
func TestPeakIsTheHighWaterMark(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if got := peakOf(cmd.ProcessState); !strings.HasSuffix(got, " MB") {
		t.Errorf("peak %q, want a size in MB", got)
	}
}
