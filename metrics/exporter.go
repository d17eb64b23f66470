package metrics

import (
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Exporter collects the figures of the runs in this process: those that
// ended (their final counts) and those still going (read when scraped).
// Counters add up over every run, so `chatseq run` exports one series
// through all its scenarios. A nil *Exporter ignores every call, so code
// that feeds it needs no check for --metrics-addr.
type Exporter struct {
	mu    sync.Mutex
	ended Tally
	live  []*liveRun
	phase string
	check checkProgress
	reg   *prometheus.Registry
	// delivery is the fan-out histograms, once a run has receivers.
	delivery *Delivery
}

// liveRun is a run in progress.
type liveRun struct {
	chats    int
	snapshot func(*Tally) // adds the run's counts so far
	faults   func() map[string]bool
	window   chatWindow
}

// checkProgress is what the checker has done in this process.
type checkProgress struct {
	started, completed int64
	running            bool
	historyBytes       int64
	invariants         map[string]int64 // by verdict
	violations         map[string]int64 // online, by invariant
}

// New is an exporter with its own registry, which also holds the Go
// runtime's and the process's standard collectors.
func New() *Exporter {
	e := &Exporter{ended: Tally{Errors: map[string]int64{}}, check: checkProgress{invariants: map[string]int64{}, violations: map[string]int64{}}}
	e.reg = prometheus.NewRegistry()
	e.reg.MustRegister(e, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return e
}

// Gatherer is what an HTTP handler serves.
func (e *Exporter) Gatherer() prometheus.Gatherer { return e.reg }

// Attach adds a live run over chats chats: snapshot adds its counts so far
// to the tally it is given, and faults (nil: none) tells which timed fault
// windows are open now, by kind. The returned detach takes the run's final
// counts and forgets it; call it once the run's operations are over.
func (e *Exporter) Attach(chats int, snapshot func(*Tally), faults func() map[string]bool) (detach func()) {
	if e == nil {
		return func() {}
	}
	r := &liveRun{chats: chats, snapshot: snapshot, faults: faults}
	r.window.start(time.Now(), chats)
	e.mu.Lock()
	e.live = append(e.live, r)
	e.mu.Unlock()
	return sync.OnceFunc(func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		final := NewTally(0)
		r.snapshot(final)
		final.AddTo(&e.ended)
		e.live = slices.DeleteFunc(e.live, func(x *liveRun) bool { return x == r })
	})
}

// Recorder is a live run whose operations are counted one at a time (the
// drill's, a server's), for code without a tally of its own.
type Recorder struct {
	mu     sync.Mutex
	tally  *Tally
	detach func()
}

// NewRecorder attaches a run over chats chats that Record feeds; a nil
// exporter's recorder counts nothing.
func (e *Exporter) NewRecorder(chats int) *Recorder {
	if e == nil {
		return nil
	}
	r := &Recorder{tally: NewTally(chats)}
	r.detach = e.Attach(chats, func(t *Tally) {
		r.mu.Lock()
		r.tally.AddTo(t)
		r.mu.Unlock()
	}, nil)
	return r
}

// Record counts one operation.
func (r *Recorder) Record(op *Op) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.tally.Add(op)
	r.mu.Unlock()
}

// Close ends the run: its counts stay in the exporter's totals.
func (r *Recorder) Close() {
	if r != nil {
		r.detach()
	}
}

// SetPhase names what the process is doing now (chatseq_phase).
func (e *Exporter) SetPhase(phase string) {
	if e == nil {
		return
	}
	e.mu.Lock()
	e.phase = phase
	e.mu.Unlock()
}

// CheckStarted says the checker began reading a history of historyBytes.
func (e *Exporter) CheckStarted(historyBytes int64) {
	if e == nil {
		return
	}
	e.mu.Lock()
	e.check.started++
	e.check.running = true
	e.check.historyBytes = historyBytes
	e.mu.Unlock()
}

// CheckFinished says the check ended, with how many invariants got each
// verdict (pass, fail, unknown, n/a); nil when it could not be read.
func (e *Exporter) CheckFinished(verdicts map[string]int) {
	if e == nil {
		return
	}
	e.mu.Lock()
	e.check.completed++
	e.check.running = false
	for v, n := range verdicts {
		e.check.invariants[v] += int64(n)
	}
	e.mu.Unlock()
}

// Violation counts an invariant the online check found violated while a
// run's writers went.
func (e *Exporter) Violation(invariant string) {
	if e == nil {
		return
	}
	e.mu.Lock()
	e.check.violations[invariant]++
	e.mu.Unlock()
}

// snapshot is everything one scrape reports, read under the lock.
type snapshot struct {
	t            Tally
	hottest      float64
	faultWindows map[string]bool
	live         int
	phase        string
	check        checkProgress
}

func (e *Exporter) snapshot(now time.Time) snapshot {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := snapshot{t: Tally{Errors: map[string]int64{}}, faultWindows: map[string]bool{}, live: len(e.live), phase: e.phase}
	e.ended.AddTo(&s.t)
	for _, r := range e.live {
		cur := NewTally(r.chats)
		r.snapshot(cur)
		cur.AddTo(&s.t)
		s.hottest = max(s.hottest, r.window.perMinute(now, cur.ChatMessages))
		if r.faults != nil {
			for k, open := range r.faults() {
				s.faultWindows[k] = s.faultWindows[k] || open
			}
		}
	}
	s.check = e.check
	s.check.invariants = maps.Clone(e.check.invariants)
	s.check.violations = maps.Clone(e.check.violations)
	return s
}
