package httptarget

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/chatseq/chatseq/internal/redact"
)

// ReadyTimeout bounds the wait for a started (or restarted) service to
// answer: 'go run' compiles first.
const ReadyTimeout = 3 * time.Minute

// process is a service bench started itself (--serve CMD): a shell
// command in a process group of its own, so that a kill reaches
// whatever it started ('go run' and the binary it builds).
type process struct {
	command string
	probe   string      // any HTTP answer from here means the service is up
	tls     *tls.Config // the run's (--ca-cert, --insecure): nil, Go's defaults
	log     *os.File
	mu      sync.Mutex
	cmd     *exec.Cmd
	exited  chan struct{}
	starts  int
}

// startProcess runs command and waits until probe answers, over tlsConf
// when it is https.
func startProcess(ctx context.Context, command, probe string, tlsConf *tls.Config) (*process, error) {
	log, err := os.CreateTemp("", "chatseq-serve-*.log")
	if err != nil {
		return nil, err
	}
	p := &process{command: command, probe: probe, tls: tlsConf, log: log}
	if err := p.start(ctx); err != nil {
		p.stop()
		return nil, err
	}
	return p, nil
}

func (p *process) start(ctx context.Context) error {
	cmd := exec.Command("sh", "-c", p.command)
	cmd.Stdout, cmd.Stderr = p.log, p.log
	cmd.SysProcAttr = processGroup()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("--serve %q: %w", redact.Text(p.command), err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	p.cmd, p.exited = cmd, exited
	p.starts++
	return p.waitReady(ctx, exited)
}

// waitReady polls the probe until the service answers, the process exits
// or ReadyTimeout passes.
func (p *process) waitReady(ctx context.Context, exited <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(ctx, ReadyTimeout)
	defer cancel()
	client := &http.Client{Timeout: time.Second}
	if p.tls != nil {
		// A self-signed service answers only a client that trusts it.
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.TLSClientConfig = p.tls
		client.Transport = t
		defer t.CloseIdleConnections()
	}
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.probe, nil)
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("--serve %q exited before it answered at %s%s", redact.Text(p.command), redact.Text(p.probe), p.logTail())
		case <-ctx.Done():
			return fmt.Errorf("--serve %q did not answer at %s within %s%s", redact.Text(p.command), redact.Text(p.probe), ReadyTimeout, p.logTail())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// logTail is the end of what the service printed, for an error message.
func (p *process) logTail() string {
	if p.log == nil {
		return ""
	}
	b, err := os.ReadFile(p.log.Name())
	if err != nil || len(b) == 0 {
		return ""
	}
	b = bytes.TrimSpace(b[max(0, len(b)-1000):])
	return ":\n" + redact.Text(string(b))
}

// restart kills the service with SIGKILL, as Jepsen's process nemesis
// does, and starts it again.
func (p *process) restart(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.signal(syscall.SIGKILL)
	<-p.exited
	p.waitUnbound(ctx)
	return p.start(ctx)
}

// waitUnbound waits, up to a few seconds, until nothing answers at the
// probe's address. The shell bench waited for is not the server: 'sh -c
// CMD' (dash does not exec it) and 'go run' leave the server a child that
// may still hold its port a moment after the shell is gone, and a
// restart then fails to listen ("address already in use").
func (p *process) waitUnbound(ctx context.Context) {
	u, err := url.Parse(p.probe)
	if err != nil {
		return
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	addr := net.JoinHostPort(u.Hostname(), port)
	deadline := time.Now().Add(unbindPatience)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err != nil {
			return // refused: nothing listens any more
		}
		c.Close()
		time.Sleep(5 * time.Millisecond)
	}
}

// unbindPatience bounds waitUnbound: past it the restart goes ahead and
// reports what the new process says.
const unbindPatience = 5 * time.Second

// stop ends the service: SIGTERM, then SIGKILL after 5 s.
func (p *process) stop() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil {
		p.signal(syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(5 * time.Second):
			p.signal(syscall.SIGKILL)
			<-p.exited
		}
	}
	p.log.Close()
	return os.Remove(p.log.Name())
}

func (p *process) signal(sig syscall.Signal) {
	_ = syscall.Kill(-p.cmd.Process.Pid, sig)
}

func processGroup() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// runNemesis runs a user's command (--nemesis-cmd, e.g. 'docker restart
// api') and waits until the service answers again.
func runNemesis(ctx context.Context, command, probe string, tlsConf *tls.Config) error {
	out, err := exec.CommandContext(ctx, "sh", "-c", command).CombinedOutput()
	if err != nil {
		return fmt.Errorf("--nemesis-cmd %q: %w: %s", redact.Text(command), err, redact.Text(string(bytes.TrimSpace(out))))
	}
	p := &process{command: command, probe: probe, tls: tlsConf}
	return p.waitReady(ctx, nil)
}
