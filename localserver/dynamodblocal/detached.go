package dynamodblocal

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/chatseq/chatseq/internal/proc"
)

// A detached DynamoDB Local is one a person starts for their own
// commands (chatseq setup, bench --store dynamodb, recover): it outlives
// the chatseq process that started it, until StopDetached. Its pid is kept
// in the user's cache directory, one file per port.

// pidFile is where the detached server on port keeps its pid.
func pidFile(port int) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("dynamodblocal: no user cache directory for the pid file: %w", err)
	}
	return filepath.Join(cache, "chatseq", "dynamodb-local-"+strconv.Itoa(port)+".pid"), nil
}

// StartDetached starts DynamoDB Local from jarDir on localhost:port, in
// memory, in a session of its own (so a Ctrl-C in the terminal that
// started it does not reach it, and it survives this process), and returns
// its endpoint once it answers. Its output goes to a log file beside the
// pid file.
func StartDetached(ctx context.Context, jarDir string, port int) (endpoint, logPath string, err error) {
	pids, err := pidFile(port)
	if err != nil {
		return "", "", err
	}
	if l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port)); err != nil {
		return "", "", fmt.Errorf("dynamodblocal: port %d is taken (%v): is a DynamoDB Local already running there? ('chatseq dynamodb-local stop --port %d' stops one chatseq started)", port, err, port)
	} else {
		l.Close()
	}
	if err := os.MkdirAll(filepath.Dir(pids), 0o755); err != nil {
		return "", "", fmt.Errorf("dynamodblocal: %w", err)
	}
	logPath = strings.TrimSuffix(pids, ".pid") + ".log"
	logFile, err := os.Create(logPath)
	if err != nil {
		return "", "", fmt.Errorf("dynamodblocal: %w", err)
	}
	defer logFile.Close()
	cmd := exec.Command("java", "-Djava.library.path=./DynamoDBLocal_lib", "-jar", JarName, "-inMemory", "-sharedDb", "-port", strconv.Itoa(port))
	cmd.Dir = jarDir
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = detachedAttr()
	if err := cmd.Start(); err != nil {
		return "", "", fmt.Errorf("dynamodblocal: start java in %s: %w", jarDir, err)
	}
	s := &Server{endpoint: "http://127.0.0.1:" + strconv.Itoa(port), cmd: cmd, output: proc.NewTailBuffer(0), exited: make(chan struct{})}
	go func() {
		s.waitErr = cmd.Wait()
		close(s.exited)
	}()
	if _, hasDeadline := ctx.Deadline(); !hasDeadline {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, StartTimeout)
		defer cancel()
	}
	if err := s.waitReady(ctx); err != nil {
		signalGroup(cmd, true)
		return "", "", fmt.Errorf("%w (its log: %s)", err, logPath)
	}
	if err := os.WriteFile(pids, []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644); err != nil {
		signalGroup(cmd, true)
		return "", "", fmt.Errorf("dynamodblocal: %w", err)
	}
	return s.endpoint, logPath, nil
}

// ErrNotStarted: no detached DynamoDB Local is known on that port.
var ErrNotStarted = errors.New("no DynamoDB Local that chatseq started runs on that port")

// StopDetached stops the DynamoDB Local StartDetached started on port:
// SIGTERM to its process group, SIGKILL if it lingers past stopGrace.
func StopDetached(port int) error {
	pids, err := pidFile(port)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(pids)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w (port %d; no %s)", ErrNotStarted, port, pids)
	}
	if err != nil {
		return fmt.Errorf("dynamodblocal: %w", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return fmt.Errorf("dynamodblocal: %s holds no pid: %q", pids, b)
	}
	if alive(pid) {
		killGroup(pid, false)
		deadline := time.Now().Add(stopGrace)
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if alive(pid) {
			killGroup(pid, true)
		}
	}
	return os.Remove(pids)
}
