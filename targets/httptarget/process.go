package httptarget

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/httpapi"
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
	// url is where the service answers: --url, or where the child said it
	// listens (httpapi.ListeningLine on its stdout) when no --url was given.
	url   string
	fixed bool        // --url given: the run drives it wherever the child listens
	tls   *tls.Config // the run's (--ca-cert, --insecure): nil, Go's defaults
	// served and volatile are what the child said it serves, and that a
	// restart starts it empty.
	served   string
	volatile bool
	// stated is the contract the child stated on the line after its
	// listening line (StatedContract), nil when it stated none.
	stated *history.Contract
	log    *os.File
	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
	starts int
}

// startProcess runs command and waits until the service it starts
// answers, at url unless the child says it listens elsewhere and fixed
// (an explicit --url) is false; over tlsConf when it is https.
func startProcess(ctx context.Context, command, url string, fixed bool, tlsConf *tls.Config) (*process, error) {
	log, err := os.CreateTemp("", "chatseq-serve-*.log")
	if err != nil {
		return nil, err
	}
	p := &process{command: command, url: url, fixed: fixed, tls: tlsConf, log: log}
	if err := p.start(ctx); err != nil {
		p.stop()
		return nil, err
	}
	return p, nil
}

func (p *process) start(ctx context.Context) error {
	// Something that listens before the command starts is not what it
	// started: a probe answered there would drive a stranger.
	occupied := listens(p.url)
	if occupied && p.fixed {
		return fmt.Errorf("--serve %q: something already listens at %s (--url) before the command started: bench would drive it, not the service --serve starts; stop it, or point --url where the service listens", redact.Text(p.command), redact.Text(p.url))
	}
	stdout, w, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd := exec.Command("sh", "-c", p.command)
	// The run's faults, races and final counter read need chatseq
	// serve's test hooks; another service ignores the variable.
	cmd.Env = append(os.Environ(), httpapi.TestHooksEnv+"=1")
	cmd.Stdout, cmd.Stderr = w, p.log
	cmd.SysProcAttr = processGroup()
	err = cmd.Start()
	w.Close()
	if err != nil {
		stdout.Close()
		return fmt.Errorf("--serve %q: %w", redact.Text(p.command), err)
	}
	announced, following := make(chan httpapi.Listening, 1), make(chan string, 1)
	go p.readStdout(stdout, announced, following)
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	p.cmd, p.exited = cmd, exited
	p.starts++
	r := readiness{exited: exited, announced: announced, occupied: occupied}
	if err := p.waitReady(ctx, &r); err != nil {
		return err
	}
	if p.starts == 1 {
		p.readStated(ctx, r.announced, following, exited)
	}
	return nil
}

// statedWithin bounds the wait, once the service answers, for the lines
// it prints on listening: chatseq serve prints both at once; a service
// that prints neither costs its first start this long.
const statedWithin = time.Second

// readStated takes the contract the child stated on the line after its
// listening line, if it printed one, and what the listening line says of
// it when the service answered before bench read that line.
func (p *process) readStated(ctx context.Context, announced <-chan httpapi.Listening, following <-chan string, exited <-chan struct{}) {
	timeout := time.NewTimer(statedWithin)
	defer timeout.Stop()
	if announced != nil {
		select {
		case l := <-announced:
			p.served, p.volatile = l.Describe, l.Volatile
		case <-timeout.C:
			return
		case <-exited:
			return
		case <-ctx.Done():
			return
		}
	}
	select {
	case line := <-following:
		if c, ok := parseStatedContract(line); ok {
			p.stated = &c
		}
	case <-timeout.C:
	case <-exited:
	case <-ctx.Done():
	}
}

// readStdout copies the child's stdout to the log, line by line, and
// hands on the first address it says it listens at, and the line after
// it (following). It reads to the end, so that a child never blocks on a
// full pipe.
func (p *process) readStdout(r io.ReadCloser, announced chan<- httpapi.Listening, following chan<- string) {
	defer r.Close()
	br := bufio.NewReader(r)
	listened := false
	for {
		line, err := br.ReadString('\n')
		if len(line) > 0 {
			_, _ = p.log.WriteString(line)
			if listened {
				select {
				case following <- line:
				default:
				}
			}
			if u, ok := httpapi.ParseListening(strings.TrimRight(line, "\r\n")); ok && !listened {
				listened = true
				select {
				case announced <- u:
				default:
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// readiness is what waitReady watches besides the service's answers.
type readiness struct {
	exited    <-chan struct{}          // the child exited (nil: no child)
	announced <-chan httpapi.Listening // where the child said it listens
	// occupied: something listened at the URL before the child started,
	// so an answer there speaks for the child only once it said it
	// listens somewhere (else).
	occupied bool
}

// waitReady polls the service until it answers, the process exits or
// ReadyTimeout passes.
func (p *process) waitReady(parent context.Context, r *readiness) error {
	ctx, cancel := context.WithTimeout(parent, ReadyTimeout)
	defer cancel()
	client := &http.Client{Timeout: time.Second}
	if p.tls != nil {
		// A self-signed service answers only a client that trusts it.
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.TLSClientConfig = p.tls
		client.Transport = t
		defer t.CloseIdleConnections()
	}
	trusted := !r.occupied
	for {
		if trusted && answers(ctx, client, p.url) {
			return nil
		}
		select {
		case l := <-r.announced:
			r.announced = nil
			p.served, p.volatile = l.Describe, l.Volatile
			if err := p.listensAt(l.URL); err != nil {
				return err
			}
			trusted = true
		case <-r.exited:
			return fmt.Errorf("--serve %q exited before it answered at %s%s%s", redact.Text(p.command), redact.Text(p.url), p.occupiedNote(r.occupied), p.logTail())
		case <-ctx.Done():
			if parent.Err() != nil { // interrupted, not out of time
				return fmt.Errorf("--serve %q was stopped before it answered at %s: %w", redact.Text(p.command), redact.Text(p.url), parent.Err())
			}
			return fmt.Errorf("--serve %q did not answer at %s within %s%s%s", redact.Text(p.command), redact.Text(p.url), ReadyTimeout, p.occupiedNote(r.occupied), p.logTail())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// listensAt takes the address the child said it listens at as the
// service's URL, unless --url fixed it. A restarted service must listen
// where the run's clients already send.
func (p *process) listensAt(u string) error {
	if p.fixed || u == p.url {
		return nil
	}
	if p.starts > 1 {
		return fmt.Errorf("--serve %q: restarted, it listens at %s, not at %s where the run sends: give it a fixed port (or --url)", redact.Text(p.command), u, redact.Text(p.url))
	}
	p.url = u
	return nil
}

func (p *process) occupiedNote(occupied bool) string {
	if !occupied {
		return ""
	}
	return fmt.Sprintf(" (something else already listened at %s before it started; it said nowhere else that it listens)", redact.Text(p.url))
}

// answers reports whether any HTTP answer comes from u.
func answers(ctx context.Context, client *http.Client, u string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false
	}
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return true
}

// listens reports whether something accepts connections at u's address.
func listens(u string) bool {
	addr, ok := hostPort(u)
	if !ok {
		return false
	}
	c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// hostPort is u's host and port, the scheme's port when it names none.
func hostPort(u string) (string, bool) {
	parsed, err := url.Parse(u)
	if err != nil || parsed.Host == "" {
		return "", false
	}
	port := parsed.Port()
	if port == "" {
		port = "80"
		if parsed.Scheme == "https" {
			port = "443"
		}
	}
	return net.JoinHostPort(parsed.Hostname(), port), true
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
	deadline := time.Now().Add(unbindPatience)
	for time.Now().Before(deadline) && ctx.Err() == nil && listens(p.url) {
		time.Sleep(5 * time.Millisecond)
	}
}

// unbindPatience bounds waitUnbound: past it the restart goes ahead and
// reports what the new process says.
const unbindPatience = 5 * time.Second

// stop ends the service, every process of its group: SIGTERM, then
// SIGKILL after stopPatience. The shell bench waited for is not the
// whole service: a server it left a child of its own may still be
// shutting down (a PostgreSQL outbox draining to Kafka) when the shell is
// gone, and would outlive the run, and the Kafka and the database the
// run closes next.
func (p *process) stop() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil {
		p.signal(syscall.SIGTERM)
		deadline := time.Now().Add(stopPatience)
		for time.Now().Before(deadline) && p.groupAlive() {
			time.Sleep(10 * time.Millisecond)
		}
		if p.groupAlive() {
			p.signal(syscall.SIGKILL)
			// A kill takes a moment to land on each process.
			for end := time.Now().Add(time.Second); time.Now().Before(end) && p.groupAlive(); {
				time.Sleep(time.Millisecond)
			}
		}
		<-p.exited
	}
	p.log.Close()
	return os.Remove(p.log.Name())
}

// stopPatience is how long a stopped service may take to shut down
// before it is killed.
const stopPatience = 5 * time.Second

// groupAlive reports whether a process of the service's group still
// runs (a zombie, dead and not yet reaped, does not count).
func (p *process) groupAlive() bool {
	pgid := p.cmd.Process.Pid
	if syscall.Kill(-pgid, 0) != nil {
		return false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true // no /proc to tell zombies apart: alive as far as we know
	}
	for _, e := range entries {
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces and parens.
		rest := string(b[bytes.LastIndexByte(b, ')')+1:])
		f := strings.Fields(rest)
		if len(f) >= 3 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			return true
		}
	}
	return false
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
	p := &process{command: command, url: probe, fixed: true, tls: tlsConf}
	return p.waitReady(ctx, &readiness{})
}
