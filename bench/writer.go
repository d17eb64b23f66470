package bench

import (
	"context"
	"sync"
	"time"

	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/sequencer"
)

// Counts are what the clients saw.
type Counts struct {
	Operations, Persists, Syncs int64
	OK, Dedup, Fail, Info       int64
	PersistOK, SyncOK           int64
	KeysReused                  int64
	Attempts, MaxTxAttempts     int64 // optimistic transactions tried, in all and at most for one persist
	Retries, DuplicatesSent     int64
	ConcurrentDuplicates        int64
	FaultsInjected              int64
	ErrorCodes                  map[string]int64
}

func (c *Counts) add(o Counts) {
	c.Operations += o.Operations
	c.Persists += o.Persists
	c.Syncs += o.Syncs
	c.OK += o.OK
	c.PersistOK += o.PersistOK
	c.SyncOK += o.SyncOK
	c.Dedup += o.Dedup
	c.Fail += o.Fail
	c.Info += o.Info
	c.Retries += o.Retries
	c.DuplicatesSent += o.DuplicatesSent
	c.ConcurrentDuplicates += o.ConcurrentDuplicates
	c.FaultsInjected += o.FaultsInjected
	c.Attempts += o.Attempts
	c.KeysReused += o.KeysReused
	c.MaxTxAttempts = max(c.MaxTxAttempts, o.MaxTxAttempts)
	for k, v := range o.ErrorCodes {
		if c.ErrorCodes == nil {
			c.ErrorCodes = map[string]int64{}
		}
		c.ErrorCodes[k] += v
	}
}

// writer is one simulated client. Its process id changes after an
// operation with an unknown outcome, as in Jepsen: that operation may still
// take effect, so the process that issued it never issues another.
type writer struct {
	id       int
	cfg      *Config
	target   Target
	rec      *history.Recorder
	lat      *latencyShard
	nextPID  int
	pid      int
	cursor   map[int]uint64 // chat index -> last sequence this client saw
	lastChat int
	sender   string // this client's user id
	lastKey  string // key of this client's previous send (to chat lastChat)
	counts   Counts
	stop     <-chan struct{}
	mu       sync.Mutex // guards counts while a twin runs
}

func newWriter(id int, cfg *Config, target Target, rec *history.Recorder, lat *latencies) *writer {
	w := &writer{
		id: id, cfg: cfg, target: target, rec: rec, lat: lat.shard(id),
		cursor: map[int]uint64{}, lastChat: -1, sender: SenderID(id),
		counts: Counts{ErrorCodes: map[string]int64{}},
	}
	w.pid = w.newPID()
	return w
}

// newPID hands out process ids writer, writer+W, writer+2W…, so ids are
// deterministic per writer and never shared between writers.
func (w *writer) newPID() int {
	pid := w.id + w.nextPID*w.cfg.Writers
	w.nextPID++
	return pid
}

// run issues operations until ops are done, stop closes (the run's
// duration is over: operations in flight still complete) or ctx ends (an
// interrupt: operations in flight end with unknown outcomes). interval > 0
// is the open-loop spacing between this writer's intended starts.
func (w *writer) run(ctx context.Context, stop <-chan struct{}, ops int, start time.Time, interval time.Duration) {
	w.stop = stop
	for op := 0; ops == 0 || op < ops; op++ {
		if w.stopped(ctx) {
			return
		}
		intended := time.Now()
		if interval > 0 {
			intended = start.Add(time.Duration(op) * interval)
			if d := time.Until(intended); d > 0 {
				select {
				case <-ctx.Done():
					return
				case <-stop:
					return
				case <-time.After(d):
				}
			}
		}
		plan := PlanOp(w.cfg, w.id, op)
		if plan.Sync {
			w.sync(ctx, plan.Chat, intended)
		} else {
			w.send(ctx, &plan, intended)
		}
	}
}

// send delivers one logical message: first attempt, retries with the same
// key while the outcome is unknown, and the configured duplicates.
func (w *writer) send(ctx context.Context, plan *OpPlan, intended time.Time) {
	chatIdx, key, content := plan.Chat, plan.Key, "message "+plan.Key
	if plan.ReuseKey && w.lastKey != "" {
		// A client bug: an old key with new content.
		chatIdx, key, content = w.lastChat, w.lastKey, "other content under "+w.lastKey
		w.count(func(c *Counts) { c.KeysReused++ })
	}
	w.lastChat, w.lastKey = chatIdx, key
	req := sequencer.Request{
		Chat: w.cfg.ChatName(chatIdx), Key: key, Sender: w.sender,
		Content: content, PayloadHash: payloadHash(content),
	}

	for attempt := 0; attempt < w.cfg.MaxAttempts; attempt++ {
		if attempt > 0 && w.stopped(ctx) {
			return
		}
		req.Faults = plan.AttemptFaults()
		if attempt > 0 {
			if !w.backOff(ctx, attempt) {
				return
			}
			w.count(func(c *Counts) { c.Retries++ })
			intended = time.Now()
		}
		var twin sync.WaitGroup
		if plan.Raced && attempt == 0 {
			twinReq := req
			twinReq.Faults = plan.TwinFaults
			twinPID := w.newPID()
			w.count(func(c *Counts) { c.ConcurrentDuplicates++ })
			twin.Add(1)
			go func() {
				defer twin.Done()
				w.persistOnce(ctx, twinPID, twinReq, time.Now(), chatIdx)
			}()
		}
		res := w.persistOnce(ctx, w.pid, req, intended, chatIdx)
		twin.Wait()
		if res == history.KindInfo {
			w.pid = w.newPID()
			continue
		}
		if res == history.KindOK && plan.DuplicateAfterOK {
			req.Faults = sequencer.FaultPlan{}
			w.count(func(c *Counts) { c.DuplicatesSent++ })
			if w.persistOnce(ctx, w.pid, req, time.Now(), chatIdx) == history.KindInfo {
				w.pid = w.newPID()
			}
		}
		return
	}
}

// persistOnce is one attempt by one process, recorded as invoke then
// ok/fail/info, returning the completion kind.
func (w *writer) persistOnce(ctx context.Context, pid int, req sequencer.Request, intended time.Time, chatIdx int) history.Kind {
	w.rec.Record(&history.Event{
		Kind: history.KindInvoke, Process: pid, F: history.FPersist, Chat: req.Chat,
		Key: req.Key, Sender: req.Sender, PayloadHash: req.PayloadHash,
	})
	tr := processTracer{rec: w.rec, process: pid}
	sent := time.Now()
	out, err := w.target.Persist(ctx, req, &tr)
	done := time.Now()

	ev := history.Event{Process: pid, F: history.FPersist, Chat: req.Chat, Key: req.Key}
	kind, code := Completion(err)
	ev.Kind, ev.Error = kind, code
	if kind == history.KindOK {
		ev.Seq, ev.MessageID, ev.Dedup = out.Seq, out.MessageID, out.Dedup
	}
	w.rec.Record(&ev)

	w.lat.record([stepCount]int64{
		StepAllocate: out.Timings.Allocate, StepPersist: out.Timings.Persist,
		StepPublish: out.Timings.Publish, StepEndToEnd: int64(done.Sub(intended)),
		StepService: int64(done.Sub(sent)),
	})
	w.count(func(c *Counts) {
		c.Operations++
		c.Persists++
		c.Attempts += int64(out.Attempts)
		c.MaxTxAttempts = max(c.MaxTxAttempts, int64(out.Attempts))
		if req.Faults.Any() {
			c.FaultsInjected++
		}
		switch kind {
		case history.KindOK:
			c.OK++
			c.PersistOK++
			if out.Dedup {
				c.Dedup++
			}
			if out.Seq > w.cursor[chatIdx] {
				w.cursor[chatIdx] = out.Seq
			}
		case history.KindFail:
			c.Fail++
			c.ErrorCodes[ev.Error]++
		case history.KindInfo:
			c.Info++
			c.ErrorCodes[ev.Error]++
		}
	})
	return kind
}

// sync reads the writer's last chat after the last sequence it saw, then
// advances its cursor as a real client would.
func (w *writer) sync(ctx context.Context, plannedChat int, intended time.Time) {
	chatIdx := w.lastChat
	if chatIdx < 0 {
		chatIdx = plannedChat
	}
	chat := w.cfg.ChatName(chatIdx)
	after := w.cursor[chatIdx]
	w.rec.Record(&history.Event{
		Kind: history.KindInvoke, Process: w.pid, F: history.FSync, Chat: chat,
		After: after, Limit: w.cfg.SyncLimit,
	})
	msgs, err := w.target.Sync(ctx, chat, after, w.cfg.SyncLimit)
	done := time.Now()
	ev := history.Event{Process: w.pid, F: history.FSync, Chat: chat}
	ev.Kind, ev.Error = Completion(err)
	if ev.Kind == history.KindOK {
		ev.Sync = SyncResultOf(msgs)
	}
	w.rec.Record(&ev)
	if ev.Kind == history.KindInfo {
		w.pid = w.newPID()
	}
	w.lat.record([stepCount]int64{StepSync: int64(done.Sub(intended))})
	w.count(func(c *Counts) {
		c.Operations++
		c.Syncs++
		switch ev.Kind {
		case history.KindOK:
			c.OK++
			c.SyncOK++
			if n := len(msgs); n > 0 && msgs[n-1].Seq > w.cursor[chatIdx] {
				w.cursor[chatIdx] = msgs[n-1].Seq
			}
		case history.KindFail:
			c.Fail++
			c.ErrorCodes[ev.Error]++
		default:
			c.Info++
			c.ErrorCodes[ev.Error]++
		}
	})
}

// maxRetryBackoff caps a client's wait between retries.
const maxRetryBackoff = 50 * time.Millisecond

// backOff waits before retry number attempt (1, 2, …), doubling from
// RetryBackoff as ADR clients do; false if the run ended meanwhile.
func (w *writer) backOff(ctx context.Context, attempt int) bool {
	d := w.cfg.RetryBackoff
	for i := 1; i < attempt && d < maxRetryBackoff; i++ {
		d *= 2
	}
	d = min(d, maxRetryBackoff)
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-w.stop:
		return false
	case <-t.C:
		return true
	}
}

func (w *writer) stopped(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	select {
	case <-w.stop:
		return true
	default:
		return false
	}
}

func (w *writer) count(f func(*Counts)) {
	w.mu.Lock()
	f(&w.counts)
	// The same update into this second's counts (timeseries.go). Applying f
	// twice is safe: besides counts it only raises w.cursor to a maximum,
	// and it stays under w.mu, which guards the cursor.
	w.lat.count(f)
	w.mu.Unlock()
}
