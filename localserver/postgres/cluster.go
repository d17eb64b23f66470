//go:build unix

package postgres

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/chatseq/chatseq/internal/proc"
)

// StartTimeout bounds initdb plus the first start when the caller's context
// has no deadline; on a busy 2-core machine initdb alone takes seconds.
const StartTimeout = 2 * time.Minute

// stopGrace is how long Stop waits after asking for a fast shutdown before
// it kills the process group.
const stopGrace = 10 * time.Second

// Superuser is the role initdb creates; trust authentication on loopback.
const Superuser = "chatseq"

// keepServerOnParentDeath leaves the server running when its owner dies
// (no parent-death signal): what a system without that signal gets, and
// what a test needs to leave a live server behind a killed owner.
var keepServerOnParentDeath = false

// Cluster is one throwaway PostgreSQL cluster: a data directory initialised
// by initdb and a postmaster serving it on 127.0.0.1.
type Cluster struct {
	bin  string
	dir  string // temp dir: data/ and the unix socket
	port int
	acct serverAccount

	mu     sync.Mutex
	server *serverProcess // nil while halted
	output *proc.TailBuffer

	stopOnce sync.Once
	stopErr  error
}

// serverProcess is one run of the postmaster.
type serverProcess struct {
	cmd     *exec.Cmd
	exited  chan struct{} // closed when the process has been reaped
	waitErr error         // valid after exited is closed
}

// Start initialises a cluster in a new temporary directory and starts it on
// a free loopback port, returning once it accepts connections. Stop
// removes everything.
func Start(ctx context.Context) (*Cluster, error) {
	bin, err := FindBin()
	if err != nil {
		return nil, err
	}
	acct, err := account()
	if err != nil {
		return nil, err
	}
	if _, hasDeadline := ctx.Deadline(); !hasDeadline {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, StartTimeout)
		defer cancel()
	}
	// Clear what killed runs left (their owners are dead); a leftover
	// that cannot be removed does not stop this run.
	for _, base := range sweepBases() {
		_, _ = sweepLeftovers(base)
	}
	// Under /tmp rather than $TMPDIR: the server account must be able to
	// reach the directory, and a root-only $TMPDIR would not let it.
	base := os.TempDir()
	if acct.cred != nil {
		base = "/tmp"
	}
	dir, err := os.MkdirTemp(base, dirPrefix)
	if err != nil {
		return nil, fmt.Errorf("postgres: temp dir: %w", err)
	}
	if err := writeOwner(dir); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("postgres: marking %s as this process's: %w", dir, err)
	}
	c := &Cluster{bin: bin, dir: dir, acct: acct, output: proc.NewTailBuffer(32 << 10)}
	if err := c.initdb(ctx); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	// Picking a free port and then handing it to the server leaves a small
	// window in which another process can take it; retry a few times.
	for attempt := 0; ; attempt++ {
		if c.port, err = freePortErr(); err != nil {
			break
		}
		if err = c.start(ctx); err == nil || attempt == 2 || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	return c, nil
}

// DSN is a libpq/pgx connection string for the cluster's postgres database.
func (c *Cluster) DSN() string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/postgres?sslmode=disable", Superuser, c.port)
}

// Port is the TCP port the cluster listens on.
func (c *Cluster) Port() int { return c.port }

func (c *Cluster) dataDir() string { return filepath.Join(c.dir, "data") }

func (c *Cluster) initdb(ctx context.Context) error {
	if err := c.acct.own(c.dir); err != nil {
		return fmt.Errorf("postgres: giving %s to %s: %w", c.dir, c.acct.name, err)
	}
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, "initdb"),
		"-D", c.dataDir(), "-U", Superuser, "--auth=trust", "-E", "UTF8",
		"--locale=C", "--no-sync", "--no-instructions")
	cmd.Env = serverEnv()
	cmd.Dir = c.dir
	cmd.SysProcAttr = procAttr(c.acct)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("postgres: initdb (as %s) in %s: %v\n%s", c.acct.name, c.dataDir(), err, out)
	}
	return nil
}

// start runs the postmaster on c.port and waits until it accepts
// connections.
func (c *Cluster) start(ctx context.Context) error {
	cmd := exec.Command(filepath.Join(c.bin, "postgres"),
		"-D", c.dataDir(), "-p", strconv.Itoa(c.port),
		"-c", "listen_addresses=127.0.0.1",
		"-c", "unix_socket_directories="+c.dir,
		// A throwaway cluster: surviving an OS crash buys nothing and
		// costs the shared machine disk flushes. Commits still write
		// their WAL before answering (synchronous_commit stays on), so a
		// committed transaction survives Halt, a server crash.
		"-c", "fsync=off", "-c", "full_page_writes=off",
		"-c", "max_connections=200", "-c", "shared_buffers=64MB",
		"-c", "logging_collector=off", "-c", "log_min_messages=warning")
	cmd.Env = serverEnv()
	cmd.Dir = c.dir
	cmd.Stdout, cmd.Stderr = c.output, c.output
	cmd.SysProcAttr = procAttr(c.acct)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("postgres: starting %s: %w", cmd.Path, err)
	}
	p := &serverProcess{cmd: cmd, exited: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	if err := c.waitReady(ctx, p); err != nil {
		p.stop(true)
		return err
	}
	c.mu.Lock()
	c.server = p
	c.mu.Unlock()
	return nil
}

// waitReady connects until the server answers, exits, or ctx ends.
func (c *Cluster) waitReady(ctx context.Context, p *serverProcess) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var lastErr error
	for {
		probeCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
		conn, err := pgx.Connect(probeCtx, c.DSN())
		if err == nil {
			err = conn.Ping(probeCtx)
			_ = conn.Close(probeCtx)
		}
		cancel()
		if err == nil {
			return nil
		}
		lastErr = err
		select {
		case <-p.exited:
			return fmt.Errorf("postgres: server exited before accepting connections (%v); output:\n%s", p.waitErr, c.output.String())
		case <-ctx.Done():
			return fmt.Errorf("postgres: not accepting connections on port %d: %w (last error: %v); output:\n%s", c.port, ctx.Err(), lastErr, c.output.String())
		case <-tick.C:
		}
	}
}

// Halt takes the server down at once, as a crash would (immediate
// shutdown: open connections break, uncommitted transactions are lost).
// Resume brings it back on the same data and port.
func (c *Cluster) Halt() error {
	c.mu.Lock()
	p := c.server
	c.server = nil
	c.mu.Unlock()
	if p == nil {
		return errors.New("postgres: Halt: the server is not running")
	}
	// SIGQUIT is PostgreSQL's immediate shutdown.
	p.signal(syscall.SIGQUIT)
	return p.wait()
}

// Resume starts the server again after Halt.
func (c *Cluster) Resume(ctx context.Context) error {
	c.mu.Lock()
	running := c.server != nil
	c.mu.Unlock()
	if running {
		return errors.New("postgres: Resume: the server is already running")
	}
	return c.start(ctx)
}

// Stop shuts the server down and removes the cluster's directory; it is
// safe to call more than once.
func (c *Cluster) Stop() error {
	c.stopOnce.Do(func() {
		c.mu.Lock()
		p := c.server
		c.server = nil
		c.mu.Unlock()
		if p != nil {
			select {
			case <-p.exited:
				// It died on its own: report why, since nobody asked it to.
				c.stopErr = fmt.Errorf("postgres: server had already exited: %v; output:\n%s", p.waitErr, c.output.String())
			default:
				p.stop(false)
			}
		}
		if err := os.RemoveAll(c.dir); err != nil && c.stopErr == nil {
			c.stopErr = fmt.Errorf("postgres: removing %s: %w", c.dir, err)
		}
	})
	return c.stopErr
}

// stop asks for a fast shutdown (SIGINT: roll back open transactions,
// disconnect) and kills the group if that takes too long, or at once.
func (p *serverProcess) stop(kill bool) {
	if !kill {
		p.signal(syscall.SIGINT)
		select {
		case <-p.exited:
			return
		case <-time.After(stopGrace):
		}
	}
	p.signal(syscall.SIGKILL)
	<-p.exited
}

// wait waits for the postmaster to exit, killing the group if it lingers.
func (p *serverProcess) wait() error {
	select {
	case <-p.exited:
		return nil
	case <-time.After(stopGrace):
		p.signal(syscall.SIGKILL)
		<-p.exited
		return errors.New("postgres: server did not exit in time and was killed")
	}
}

// signal addresses the postmaster's process group (a negative pid), so
// backends go too.
func (p *serverProcess) signal(sig syscall.Signal) {
	if sig == syscall.SIGKILL {
		_ = syscall.Kill(-p.cmd.Process.Pid, sig)
		return
	}
	// Shutdown requests go to the postmaster alone: it stops its children
	// in order.
	_ = p.cmd.Process.Signal(sig)
}

// serverEnv is our environment without PG* variables (a PGDATA or PGPORT
// meant for another cluster must not steer this one), in the C locale.
func serverEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PG") || strings.HasPrefix(kv, "LC_") || strings.HasPrefix(kv, "LANG=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "LC_ALL=C", "LANG=C")
}

// freePortErr names the server in the error.
func freePortErr() (int, error) {
	port, err := proc.FreePort()
	if err != nil {
		return 0, fmt.Errorf("postgres: pick a port: %w", err)
	}
	return port, nil
}
