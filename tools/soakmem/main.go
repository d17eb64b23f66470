// Command soakmem measures how chatseq bench's memory grows with a run
// against 'chatseq serve' in its own process (issue 30, "Memory that does
// not grow with the run"): it starts the service, runs bench over http
// against it, reads bench's resident memory (VmRSS, /proc) every -every
// while the writers run, and prints the growth after -warm in bytes per
// operation, with the seconds from the writers' end to bench's exit
// (the verdict):
//
//	go build -o /tmp/chatseq ./cmd/chatseq
//	go run ./tools/soakmem -bin /tmp/chatseq -duration 2m -rate 2000
//	go run ./tools/soakmem -bin /tmp/chatseq -duration 20m -rate 2000 -- --online=false
//
// Arguments after -- go to bench. The operations are the count on bench's
// progress lines; the peak is bench's high-water mark (its rusage), after
// the writers too. Linux only (it reads /proc/PID/status).
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() {
	code, err := run(os.Args[1:], os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soakmem:", err)
	}
	os.Exit(code)
}

type options struct {
	bin      string
	listen   string
	duration time.Duration
	rate     float64
	warm     time.Duration
	every    time.Duration
	dir      string
	serveCPU string
	extra    []string
}

func parse(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("soakmem", flag.ContinueOnError)
	fs.StringVar(&o.bin, "bin", "", "the chatseq binary (required)")
	fs.StringVar(&o.listen, "listen", "127.0.0.1:8497", "where the service listens")
	fs.DurationVar(&o.duration, "duration", 2*time.Minute, "bench --duration")
	fs.Float64Var(&o.rate, "rate", 2000, "bench --rate (sends a second)")
	fs.DurationVar(&o.warm, "warm", time.Minute, "growth is measured from the first sample at or after this")
	fs.DurationVar(&o.every, "every", 5*time.Second, "how often bench's memory is read")
	fs.StringVar(&o.serveCPU, "serve-cpuprofile", "", "a CPU profile of the service's whole run to this file (the service is stopped with an interrupt so it writes it)")
	fs.StringVar(&o.dir, "dir", "", "scratch directory for the history and the logs (default: a new temporary one)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	o.extra = fs.Args()
	switch {
	case o.bin == "":
		return o, errors.New("-bin: the chatseq binary is required (go build -o /tmp/chatseq ./cmd/chatseq)")
	case o.duration <= 0 || o.every <= 0 || o.warm < 0:
		return o, errors.New("-duration and -every must be positive, -warm not negative")
	case o.warm >= o.duration:
		return o, fmt.Errorf("-warm %s leaves nothing of -duration %s to measure", o.warm, o.duration)
	case o.rate <= 0:
		return o, errors.New("-rate must be positive")
	}
	return o, nil
}

// sample is bench's memory and operations at a time since its start.
type sample struct {
	at  time.Duration
	rss int64 // bytes
	ops int64
}

// growth is the resident memory gained per operation from the first
// sample at or after warm to the last one, and the two samples.
func growth(s []sample, warm time.Duration) (perOp float64, from, to sample, ok bool) {
	i := 0
	for i < len(s) && s[i].at < warm {
		i++
	}
	if i >= len(s)-1 {
		return 0, sample{}, sample{}, false
	}
	from, to = s[i], s[len(s)-1]
	if to.ops <= from.ops {
		return 0, from, to, false
	}
	return float64(to.rss-from.rss) / float64(to.ops-from.ops), from, to, true
}

var opsRe = regexp.MustCompile(`\s(\d+) ops\s`)

// progressOps is the operation count of a bench progress line.
func progressOps(line string) (int64, bool) {
	if !strings.HasPrefix(line, "progress:") {
		return 0, false
	}
	m := opsRe.FindStringSubmatch(line + " ")
	if m == nil {
		return 0, false
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	return n, err == nil
}

func rssOf(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmRSS")
}

func run(args []string, out io.Writer) (int, error) {
	o, err := parse(args)
	if err != nil {
		return 2, err
	}
	if o.dir == "" {
		o.dir, err = os.MkdirTemp("", "soakmem")
	} else {
		err = os.MkdirAll(o.dir, 0o755)
	}
	if err != nil {
		return 5, err
	}
	// A server already there would answer bench instead of the one
	// started here, and the run would measure it.
	if err := addressFree(o.listen); err != nil {
		return 2, err
	}
	serveLog, err := os.Create(filepath.Join(o.dir, "serve.log"))
	if err != nil {
		return 5, err
	}
	defer serveLog.Close()
	// Interrupted or terminated, soakmem stops bench as Ctrl-C does (it
	// still settles, checks and reports what ran) and then the service:
	// neither is left behind.
	stopped, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	serve := exec.CommandContext(ctx, o.bin, "serve", "--listen", o.listen)
	serve.Stdout, serve.Stderr = serveLog, serveLog
	// Its own process group, so that a terminal's Ctrl-C reaches
	// soakmem, which stops bench first, not the service bench is still
	// reading its final state from; and killed with soakmem, whatever
	// kills it.
	serve.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	// The profiles asked for by the environment are bench's: the service
	// writing its own to the same file at the same moment corrupted them.
	serve.Env = withoutProfiles(os.Environ())
	if o.serveCPU != "" {
		serve.Env = append(serve.Env, "CHATSEQ_CPUPROFILE="+o.serveCPU)
		serve.Cancel = func() error { return serve.Process.Signal(os.Interrupt) }
	}
	if err := serve.Start(); err != nil {
		return 5, err
	}
	serveExited := make(chan error, 1)
	go func() { serveExited <- serve.Wait() }()
	defer func() { <-serveExited }()
	if o.serveCPU != "" {
		defer cancel() // an interrupt: the service writes its profile
	} else {
		defer serve.Process.Kill()
	}
	if err := waitListening(o.listen, 30*time.Second, serveExited); err != nil {
		return 5, fmt.Errorf("chatseq serve: %w (its log: %s)", err, serveLog.Name())
	}

	benchArgs := append([]string{"bench", "--target", "http", "--url", "http://" + o.listen,
		"--duration", o.duration.String(), "--rate", strconv.FormatFloat(o.rate, 'f', -1, 64),
		"--history", filepath.Join(o.dir, "history.jsonl")}, o.extra...)
	bench := exec.Command(o.bin, benchArgs...)
	bench.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL} // as the service's
	benchOut, err := os.Create(filepath.Join(o.dir, "bench.out"))
	if err != nil {
		return 5, err
	}
	defer benchOut.Close()
	bench.Stdout = benchOut
	stderr, err := bench.StderrPipe()
	if err != nil {
		return 5, err
	}
	began := time.Now()
	if err := bench.Start(); err != nil {
		return 5, err
	}
	go func() {
		<-stopped.Done()
		bench.Process.Signal(os.Interrupt)
	}()
	var (
		mu   sync.Mutex
		ops  int64
		done time.Time // when bench said its writers were done
		eof  time.Time // when bench's standard error closed: its exit
	)
	read := make(chan struct{})
	go func() {
		defer close(read)
		defer func() {
			mu.Lock()
			eof = time.Now()
			mu.Unlock()
		}()
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if n, ok := progressOps(sc.Text()); ok {
				mu.Lock()
				ops = n
				if done.IsZero() && (strings.Contains(sc.Text(), "writers done") || strings.Contains(sc.Text(), "writers stopped early")) {
					done = time.Now()
				}
				mu.Unlock()
			}
			fmt.Fprintln(benchOut, sc.Text())
		}
	}()
	var samples []sample
	tick := time.NewTicker(o.every)
sampling:
	for {
		// bench's exit is timed by its standard error closing, not by the
		// next sample failing (up to -every later).
		select {
		case <-tick.C:
		case <-read:
			break sampling
		}
		at := time.Since(began)
		rss, err := rssOf(bench.Process.Pid)
		if err != nil {
			break
		}
		mu.Lock()
		s, writing := sample{at: at, rss: rss, ops: ops}, done.IsZero()
		mu.Unlock()
		if !writing {
			continue // the final state and the check
		}
		samples = append(samples, s)
		fmt.Fprintf(out, "%6.0fs  rss %7.1f MB  ops %9d\n", at.Seconds(), float64(rss)/1e6, s.ops)
	}
	tick.Stop()
	<-read
	werr := bench.Wait()
	mu.Lock()
	exited := eof
	mu.Unlock()
	code := bench.ProcessState.ExitCode()
	perOp, from, to, ok := growth(samples, o.warm)
	if !ok {
		fmt.Fprintf(out, "too few samples after %s to measure growth\n", o.warm)
	} else {
		fmt.Fprintf(out, "growth after %s: %.1f MB over %d ops (%.0fs to %.0fs): %.0f bytes/op\n",
			o.warm, float64(to.rss-from.rss)/1e6, to.ops-from.ops, from.at.Seconds(), to.at.Seconds(), perOp)
	}
	after := "bench never said its writers were done"
	if !done.IsZero() {
		after = fmt.Sprintf("bench exited %.1fs after its writers were done", exited.Sub(done).Seconds())
	}
	if stopped.Err() != nil {
		after += ", stopped by a signal"
	}
	fmt.Fprintf(out, "peak rss %s; %s (exit %d); history and logs in %s\n", peakOf(bench.ProcessState), after, code, o.dir)
	if werr != nil && code < 0 {
		return 5, werr
	}
	select {
	case err := <-serveExited:
		serveExited <- err // for the deferred wait
		// Before the kill: the service died under the run, unless a
		// signal to the whole group stopped it too.
		if stopped.Err() == nil {
			return 5, fmt.Errorf("chatseq serve exited while bench ran (%v): see %s", err, serveLog.Name())
		}
	default:
	}
	return code, nil
}

// peakOf is the highest resident memory bench reached, after its writers
// too (the final state and the check): the kernel's high-water mark, not
// the highest sample.
func peakOf(ps *os.ProcessState) string {
	if u, ok := ps.SysUsage().(*syscall.Rusage); ok && u.Maxrss > 0 {
		return fmt.Sprintf("%.1f MB", float64(u.Maxrss)*1024/1e6) // Linux: KB
	}
	return "unknown"
}

// addressFree reports an error when something already listens on addr.
func addressFree(addr string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("-listen %s: %w: something already listens there, and bench would measure it instead of the service this starts; stop it or give another -listen", addr, err)
	}
	return l.Close()
}

// withoutProfiles is env without the CHATSEQ_*PROFILE* variables.
func withoutProfiles(env []string) []string {
	var out []string
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "CHATSEQ_") && strings.Contains(name, "PROFILE") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// waitListening waits until addr takes connections, unless the service
// exits first (exited gets its Wait's error; it is put back).
func waitListening(addr string, within time.Duration, exited chan error) error {
	deadline := time.Now().Add(within)
	for {
		select {
		case err := <-exited:
			exited <- err
			return fmt.Errorf("exited before listening on %s: %v", addr, err)
		default:
		}
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not listening on %s after %s: %w", addr, within, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
