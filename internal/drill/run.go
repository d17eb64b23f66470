package drill

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/recovery"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/store"
)

// procedure is how a drill recovers: the runbook, or one that skips a
// prerequisite.
type procedure struct {
	name string
	// quiesce: stop the writers and wait for every write in flight before
	// recovering (the runbook's "no active writes"), then send one test
	// message before they resume (its "post-recovery verification").
	quiesce bool
	// releaseAfterRecovery: the straggler commits only after the recovery
	// is written, racing it; otherwise it is let go at detection.
	releaseAfterRecovery bool
	recover              Recoverer
}

const (
	stragglerKey = "drill-straggler"
	verifyKey    = "drill-verify"
	drillSender  = "drill"
	// controllerPID numbers the drill's own operations apart from writers'.
	controllerPID = 1 << 20
	// finalStateTimeout bounds reading the final state, which runs even
	// when the drill's own deadline has passed.
	finalStateTimeout = time.Minute
)

// run is one drill in progress.
type run struct {
	cfg  Config
	proc procedure
	st   store.Store // the caller's store; the core writes through hold
	hold *holdStore
	r    *recorder
	gate *gate
	res  *Result

	stop      chan struct{}
	stopOnce  sync.Once
	writers   sync.WaitGroup
	straggler sync.WaitGroup
	nextPID   int
}

// execute runs a drill and judges it with check, then evaluate.
func execute(ctx context.Context, st store.Store, cfg Config, proc procedure) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.Strategy, _ = sequencer.ParseStrategy(string(cfg.Strategy))
	hold := newHoldStore(st, stragglerKey)
	core, err := sequencer.New(sequencer.Config{Store: hold, Strategy: cfg.Strategy})
	if err != nil {
		return nil, err
	}
	members := []string{drillSender}
	for i := range cfg.Writers {
		members = append(members, senderID(i))
	}
	if err := core.CreateChat(ctx, cfg.Chat, members); err != nil {
		if errors.Is(err, store.ErrChatExists) {
			return nil, fmt.Errorf("drill: chat %q already exists: a drill needs a chat of its own", cfg.Chat)
		}
		return nil, fmt.Errorf("drill: creating chat %q: %w", cfg.Chat, err)
	}

	f, err := history.Create(cfg.HistoryPath)
	if err != nil {
		return nil, fmt.Errorf("drill: history: %w", err)
	}
	defer f.Close()
	// The recorder buffers and the file writes whole blocks; the
	// recorder's timer puts what it recorded in the file (Checkpoint).
	rec, err := history.NewRecorder(f, header(cfg, proc), 200*time.Millisecond)
	if err != nil {
		return nil, fmt.Errorf("drill: history: %w", err)
	}
	defer rec.Close() // on an error return: what was recorded reaches the file

	live := cfg.Metrics.NewRecorder(1)
	defer live.Close()
	ru := &run{
		cfg: cfg, proc: proc, st: st, hold: hold, gate: newGate(),
		r:    &recorder{core: core, rec: rec, obs: newObserver(), chat: cfg.Chat, live: live},
		res:  newResult(proc.name, cfg),
		stop: make(chan struct{}),
	}
	// Writers run under the drill's deadline until finish has stopped them:
	// cancelling a call in flight would abandon a write DynamoDB may
	// already have applied, leaving an allocation the history never saw.
	phaseCtx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	if err := ru.phases(phaseCtx); err != nil {
		ru.res.Aborted = err.Error()
	}
	if err := ru.finish(ctx); err != nil {
		return nil, err
	}
	live.Close()
	// The end line says the history is complete, final state and all.
	if err := rec.End(); err != nil {
		return nil, fmt.Errorf("drill: history: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("drill: history: %w", err)
	}

	checked := cfg.Metrics.Checking(cfg.HistoryPath)
	h, err := history.ReadFile(cfg.HistoryPath)
	if err != nil {
		checked(nil)
		return nil, fmt.Errorf("drill: reading back the history: %w", err)
	}
	ru.res.Report = checker.Check(h, cfg.CheckOptions)
	checked(&ru.res.Report)
	ru.res.observe(analyse(h))
	return ru.res, nil
}

// phases drives the load through the incident. An error aborts the drill
// (recorded in Result.Aborted); finish still stops the load cleanly.
func (ru *run) phases(ctx context.Context) error {
	tl, obs, r := &ru.res.Timeline, ru.r.obs, ru.r
	tl.LoadStart = r.rec.Now()
	phaseStart := time.Now()
	ru.cfg.Metrics.SetPhase(PhaseWarmup)
	for i := range ru.cfg.Writers {
		w := newWriter(i, &ru.cfg, r, ru.gate)
		ru.writers.Add(1)
		go func() {
			defer ru.writers.Done()
			w.run(ctx, ru.stop)
		}()
	}
	// Stage the incident with the writers held for a moment, so the
	// straggler and the orphans hold the highest allocations when the
	// counter goes.
	if err := ru.phaseDone(ctx, phaseStart, func(o *observer) bool { return o.acks >= ru.cfg.Warmup }, ru.gate.hold); err != nil {
		return fmt.Errorf("warm-up: %d messages were not acknowledged in time: %w", ru.cfg.Warmup, err)
	}
	if err := ru.gate.pause(ctx); err != nil {
		return fmt.Errorf("staging: writers did not pause: %w", err)
	}
	if err := ru.startStraggler(ctx); err != nil {
		return err
	}
	tl.StragglerInFlight = r.rec.Now()
	for i := range ru.cfg.Orphans {
		// The server dies between allocate and persist: the sequence is
		// allocated and never persisted.
		r.persist(ctx, ru.pid(), sequencer.Request{Key: fmt.Sprintf("drill-orphan-%d", i), Sender: drillSender,
			Faults: sequencer.FaultPlan{CrashAfterAllocate: true}})
	}
	if err := ru.st.DeleteCounter(ctx, ru.cfg.Chat); err != nil {
		return fmt.Errorf("deleting the counter: %w", err)
	}
	tl.CounterDeleted = r.rec.Now()
	phaseStart = time.Now()
	ru.cfg.Metrics.SetPhase(PhaseCounterMissing)
	ru.gate.resume()

	if err := obs.when(ctx, func(o *observer) bool { return o.firstMissing >= 0 }, nil); err != nil {
		return fmt.Errorf("detection: no send failed with counter_missing after the deletion: %w", err)
	}
	obs.mu.Lock()
	tl.FirstCounterMissing = obs.firstMissing
	obs.mu.Unlock()
	if !ru.proc.releaseAfterRecovery {
		ru.hold.release()
	}
	// The outage goes on (sends failing) until the responder acts.
	if err := sleepUntil(ctx, phaseStart.Add(ru.cfg.Hold)); err != nil {
		return fmt.Errorf("outage: %w", err)
	}

	if ru.proc.quiesce {
		if err := ru.gate.pause(ctx); err != nil {
			return fmt.Errorf("quiescing: writes still in flight: %w", err)
		}
		tl.Quiesced = r.rec.Now()
	}
	max, err := recovery.MaxPersisted(ctx, ru.st, ru.cfg.Chat)
	if err != nil {
		return err
	}
	ru.res.MaxPersisted = max
	ru.cfg.Metrics.SetPhase(PhaseRecovering)
	if err := ru.recover(ctx); err != nil {
		return err
	}
	phaseStart = time.Now()
	if ru.proc.releaseAfterRecovery {
		ru.hold.release()
		ru.straggler.Wait()
	}
	if ru.proc.quiesce {
		// Post-recovery verification: one test message before the
		// writers resume, which must get max+1.
		if out := r.persist(ctx, ru.pid(), sequencer.Request{Key: verifyKey, Sender: drillSender}); out.kind == history.KindOK {
			ru.res.VerifySeq = out.seq
		}
		ru.gate.resume()
	}
	ru.cfg.Metrics.SetPhase(PhaseRecovered)
	if err := ru.phaseDone(ctx, phaseStart, func(o *observer) bool { return o.acksSince >= ru.cfg.After }, ru.stopLoad); err != nil {
		return fmt.Errorf("after recovery: %d new messages were not acknowledged in time: %w", ru.cfg.After, err)
	}
	return nil
}

// The drill's phases as the live metrics' chatseq_phase names them.
const (
	PhaseWarmup         = "drill-warmup"
	PhaseCounterMissing = "drill-counter-missing"
	PhaseRecovering     = "drill-recovering"
	PhaseRecovered      = "drill-after-recovery"
	PhaseFinish         = "drill-final-state"
)

// phaseDone waits until cond holds and the phase, begun at start, has
// lasted Config.Hold, then runs fire (if not nil). Without a hold fire
// runs inside the completion that meets cond, within one operation of it.
func (ru *run) phaseDone(ctx context.Context, start time.Time, cond func(*observer) bool, fire func()) error {
	if ru.cfg.Hold <= 0 {
		return ru.r.obs.when(ctx, cond, fire)
	}
	if err := ru.r.obs.when(ctx, cond, nil); err != nil {
		return err
	}
	if err := sleepUntil(ctx, start.Add(ru.cfg.Hold)); err != nil {
		return err
	}
	if fire != nil {
		fire()
	}
	return nil
}

// sleepUntil waits until t or ctx's end.
func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// startStraggler sends the persist the store holds and waits until it is in
// flight (under two-phase: its sequence is allocated).
func (ru *run) startStraggler(ctx context.Context) error {
	ru.gate.enterAlways() // a pause must wait for it like any write
	ru.straggler.Add(1)
	done := make(chan struct{})
	pid := ru.pid()
	go func() {
		defer ru.straggler.Done()
		defer close(done)
		defer ru.gate.exit()
		ru.r.persist(ctx, pid, sequencer.Request{Key: stragglerKey, Sender: drillSender})
	}()
	select {
	case <-ru.hold.arrived:
		return nil
	case <-done:
		return errors.New("staging: the straggler persist ended before reaching its commit")
	case <-ctx.Done():
		return fmt.Errorf("staging: the straggler persist did not reach its commit: %w", ctx.Err())
	}
}

// recover runs the procedure's recovery step and reads the counter it left.
func (ru *run) recover(ctx context.Context) error {
	tl, r := &ru.res.Timeline, ru.r
	tl.RecoveryStarted = r.rec.Now()
	r.obs.countFrom(tl.RecoveryStarted)
	v, err := ru.proc.recover(ctx, ru.st, ru.cfg.Chat)
	tl.RecoveryWritten = r.rec.Now()
	ru.res.Recovered = v
	if err != nil {
		ru.res.RecoveryError = err.Error()
	}
	c, cerr := ru.st.GetCounter(ctx, ru.cfg.Chat, true)
	if cerr != nil {
		return fmt.Errorf("reading the counter after recovery: %w", cerr)
	}
	if c.Missing {
		return fmt.Errorf("recovery left the counter missing: %v", err)
	}
	ru.res.CounterAfterRecovery = c.Value
	return nil
}

// stopLoad tells writers to finish their operation in flight and stop.
func (ru *run) stopLoad() { ru.stopOnce.Do(func() { close(ru.stop) }) }

func (ru *run) pid() int {
	ru.nextPID++
	return controllerPID + ru.nextPID
}

// finish stops the load (operations in flight complete), then records the
// final state of the drill's chat.
func (ru *run) finish(ctx context.Context) error {
	ru.cfg.Metrics.SetPhase(PhaseFinish)
	ru.hold.release()
	ru.stopLoad()
	ru.gate.resume()
	ru.writers.Wait()
	ru.straggler.Wait()
	ru.r.core.Wait()
	ru.res.Timeline.LoadStopped = ru.r.rec.Now()

	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), finalStateTimeout)
	defer cancel()
	state, err := ru.st.Dump(ctx, []string{ru.cfg.Chat})
	if err != nil {
		return fmt.Errorf("drill: reading the final state: %w", err)
	}
	var read bench.TablesRead
	state.Visit(read.Visitor(ru.r.rec.RecordFinal))
	return read.Record(ru.r.rec)
}

func header(cfg Config, proc procedure) history.Header {
	str := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	return history.Header{
		Version: history.Version, Target: cfg.Target, Scenario: "drill " + proc.name,
		Seed: cfg.Seed, HasSeed: true,
		Contract: history.Contract{Gaps: history.GapsAllowed, KeyReuse: history.KeyReuseReturnOriginal, Events: history.EventsNone},
		Extra: map[string]string{
			"drill_chat": str(cfg.Chat), "strategy": str(string(cfg.Strategy)),
			"orphans": fmt.Sprint(cfg.Orphans), "writers": fmt.Sprint(cfg.Writers),
			// The drill's chat is its own (a run prefix) and every write
			// to it is a recorded persist.
			history.SoleWriterField: "true",
		},
	}
}
