package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"time"
)

// ExitInterrupted is the status of a bench ended by an interrupt after its
// writers (128 + SIGINT, as a shell reports a process the signal killed).
const ExitInterrupted = 130

// ExitInterruptedRun is the status of a bench whose writers an interrupt
// stopped early: what ran was recorded, checked and reported, and no
// invariant failed (a violation still exits 1), but the run is shorter
// than asked, so its passing verdict, undecided invariants or thresholds
// do not speak for the run that was asked for.
const ExitInterruptedRun = 6

// interrupts is bench's Ctrl-C. The first one while writers run stops them:
// what ran is still recorded whole, checked and reported. One after the
// writers (while the history is read back and checked, which can take
// longer than the run), or a second one, ends the process at once, naming
// the history so far, which `chatseq check` can judge later.
type interrupts struct {
	stderr  io.Writer
	cancel  context.CancelFunc
	quit    func(code int) // os.Exit
	mu      sync.Mutex
	writing bool   // an interrupt now stops the writers
	running bool   // and they have started (else the target still starts)
	history string // the file being written or checked
	// progress, when set, is the display drawn in place on stderr: a
	// message takes its line rather than landing after its text.
	progress *progressPrinter
	// release stops what the run started outside this process (a --serve
	// service, a throwaway cluster) when an interrupt quits at once.
	release map[int]func() error
	nextID  int
}

// quitCleanupPatience bounds the cleanups of a quit: the process exits
// after it even if one hangs.
const quitCleanupPatience = 3 * time.Second

// onQuit registers f to run if an interrupt quits the process at once;
// forget unregisters it (the run closed what f closes itself).
func (in *interrupts) onQuit(f func() error) (forget func()) {
	if in == nil {
		return func() {}
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.release == nil {
		in.release = map[int]func() error{}
	}
	id := in.nextID
	in.nextID++
	in.release[id] = f
	return func() {
		in.mu.Lock()
		defer in.mu.Unlock()
		delete(in.release, id)
	}
}

// releaseAll runs the registered cleanups, for at most
// quitCleanupPatience; in.mu is held.
func (in *interrupts) releaseAll() {
	if len(in.release) == 0 {
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, f := range in.release {
			_ = f()
		}
	}()
	select {
	case <-done:
	case <-time.After(quitCleanupPatience):
	}
}

// say prints msg on a line of its own.
func (in *interrupts) say(msg string) {
	if in.progress != nil {
		in.progress.message(msg)
		return
	}
	fmt.Fprintln(in.stderr, msg)
}

// catchInterrupts returns the context the writers run under and the
// handler; release stops catching.
func catchInterrupts(parent context.Context, stderr io.Writer) (context.Context, *interrupts, func()) {
	ctx, cancel := context.WithCancel(parent)
	in := &interrupts{stderr: stderr, cancel: cancel, quit: os.Exit}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-sig:
				in.interrupted()
			case <-done:
				return
			}
		}
	}()
	return ctx, in, func() {
		signal.Stop(sig)
		close(done)
		cancel()
	}
}

func (in *interrupts) interrupted() {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.writing {
		in.writing = false
		in.cancel()
		if !in.running {
			// The target is still starting (a --serve command not yet
			// answering, a database): no writer ran, nothing to check.
			in.say("chatseq: interrupted before the writers started: stopping what was starting")
			return
		}
		in.say("chatseq: interrupted: stopping the writers; what ran is still recorded, checked and reported (interrupt again to quit at once)")
		return
	}
	if in.history != "" {
		in.say(fmt.Sprintf("chatseq: interrupted; the history so far is %s ('chatseq check %s' judges it)", in.history, in.history))
	} else {
		in.say("chatseq: interrupted")
	}
	// A service --serve started, a throwaway cluster: not left running.
	in.releaseAll()
	in.quit(ExitInterrupted)
}

// writersStart says the writers of a run streaming to history are about to
// start: an interrupt stops them, unless one already did.
func (in *interrupts) writersStart(ctx context.Context, history string, progress *progressPrinter) {
	if in == nil {
		return
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	in.writing, in.running, in.history = ctx.Err() == nil, false, history
	in.progress = nil
	if progress != nil && progress.tty {
		in.progress = progress
	}
}

// writersRunning says the target is open and the writers start: an
// interrupt from now on stops writers.
func (in *interrupts) writersRunning() {
	if in == nil {
		return
	}
	in.mu.Lock()
	in.running = true
	in.mu.Unlock()
}

// writersDone says the writers stopped: an interrupt now quits.
func (in *interrupts) writersDone() {
	if in == nil {
		return
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	in.writing = false
}

// beforeCheck runs just before bench checks a history; a test makes it
// slow, to interrupt the check.
var beforeCheck = func() {}

// atPhase runs as a run begins each step after its writers
// (bench.PhaseFinalState, bench.PhaseEvents); a test makes one slow, to
// interrupt it.
var atPhase = func(string) {}
