package httptarget_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chatseq/chatseq/internal/serve"
	"github.com/chatseq/chatseq/scenarios"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/targets"
	"github.com/chatseq/chatseq/targets/httptarget"
)

// serveCommand is a --serve command that runs this test binary as
// chatseq serve over memory, listening at listen.
func serveCommand(t *testing.T, listen string) string {
	t.Helper()
	o := serve.Options{Target: "memory", Strategy: sequencer.TwoPhase, RepublishOnReplay: true, Kafka: serve.KafkaOff, Listen: listen, Seed: 1}
	spec, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s=%s exec %s", serveEnv, scenarios.ShellQuote(string(spec)), scenarios.ShellQuote(os.Args[0]))
}

// openWithin opens the http target, giving up after a minute (a start
// that waits for the wrong address waits three).
func openWithin(t *testing.T, opts targets.Options) (*targets.Opened, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return targets.Open(ctx, httptarget.Name, opts)
}

// Without --url, bench drives the service where the --serve command says
// it listens, not at the default address.
func TestServeWithoutURLDrivesWhereTheServiceListens(t *testing.T) {
	opened, err := openWithin(t, targets.Options{Serve: serveCommand(t, "127.0.0.1:0")})
	if err != nil {
		t.Fatalf("a service on a port of its own choosing should start: %v", err)
	}
	defer opened.Close()
	if strings.Contains(opened.Describe, httptarget.DefaultURL) || !strings.Contains(opened.Describe, "started by --serve") {
		t.Fatalf("Describe %q: want the address the service printed, started by --serve", opened.Describe)
	}
}

// A service that already answers at --url before the --serve command
// starts is not the one it starts: bench refuses to drive it.
func TestServeRefusesAStrangerOnItsPort(t *testing.T) {
	stranger := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
	}))
	defer stranger.Close()
	// The command cannot bind the stranger's port; a service that did
	// start elsewhere without saying so would not be reached either.
	opened, err := openWithin(t, targets.Options{URL: stranger.URL, Serve: serveCommand(t, strings.TrimPrefix(stranger.URL, "http://"))})
	if err == nil {
		opened.Close()
		t.Fatalf("bench drives %s, which answered before --serve started: %s", stranger.URL, opened.Describe)
	}
	if !strings.Contains(err.Error(), "already listens at "+stranger.URL) {
		t.Fatalf("the error should name the stranger's address: %v", err)
	}
}

// A --serve command that exits is a failed start that shows what it
// printed.
func TestServeThatExitsIsAFailedStart(t *testing.T) {
	opened, err := openWithin(t, targets.Options{Serve: `echo "listen tcp 127.0.0.1:8480: bind: address already in use" >&2; exit 1`})
	if err == nil {
		opened.Close()
		t.Fatal("a command that exited started a service")
	}
	if !strings.Contains(err.Error(), "exited before it answered") || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("the error should say the command exited, and what it printed: %v", err)
	}
}

// Stopping a --serve service ends every process the command started,
// not only the shell bench waited for: a child that outlives its shell
// (here one that ignores SIGTERM, as a server busy shutting down does)
// is killed, so that it never outlives the run and what the run closes
// after it.
func TestStoppedServiceLeavesNoProcessBehind(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	command := fmt.Sprintf(`(trap "" TERM; exec sleep 300) & echo $! > %s; %s`, scenarios.ShellQuote(pidFile), serveCommand(t, "127.0.0.1:0"))
	opened, err := openWithin(t, targets.Options{Serve: command})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		opened.Close()
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		opened.Close()
		t.Fatal(err)
	}
	opened.Close()
	if running(pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the command's child %d still runs after the service was stopped", pid)
	}
}

// running: pid is a process that has not exited (a zombie has).
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}
