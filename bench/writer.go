package bench

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/store"
	"github.com/chatseq/chatseq/target"
)

// Counts are what the clients saw.
type Counts struct {
	Operations, Persists, Syncs int64
	OK, Dedup, Fail, Info       int64
	PersistOK, SyncOK           int64
	SyncFail, SyncInfo          int64 // of Fail and Info, the syncs'
	KeysReused                  int64
	KeysAcrossChats             int64 // sends with a key last sent to another chat
	KeysAcrossSenders           int64 // sends by another member with a key last sent to its chat
	OddKeys                     int64 // sends with an unusual key (--odd-keys)
	OutsiderSends               int64 // sends by a user not a member of the chat
	OutsiderSyncs               int64 // syncs read as a user not a member of the chat
	ForgedSends                 int64 // sends whose body names another member than the caller, an outsider or a member (--forged-senders)
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
	c.SyncFail += o.SyncFail
	c.SyncInfo += o.SyncInfo
	c.Dedup += o.Dedup
	c.Fail += o.Fail
	c.Info += o.Info
	c.Retries += o.Retries
	c.DuplicatesSent += o.DuplicatesSent
	c.ConcurrentDuplicates += o.ConcurrentDuplicates
	c.FaultsInjected += o.FaultsInjected
	c.Attempts += o.Attempts
	c.KeysReused += o.KeysReused
	c.KeysAcrossChats += o.KeysAcrossChats
	c.KeysAcrossSenders += o.KeysAcrossSenders
	c.OddKeys += o.OddKeys
	c.OutsiderSends += o.OutsiderSends
	c.OutsiderSyncs += o.OutsiderSyncs
	c.ForgedSends += o.ForgedSends
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
//
// Every time a writer reads is on the recorder's clock (monotonic
// nanoseconds), so latencies, intervals and the history agree.
type writer struct {
	id     int
	cfg    *Config
	target target.Target
	// asUser reads as a named user (nil: the target's syncs name none).
	asUser   target.UserReader
	rec      *history.Recorder
	lat      *latencyShard
	planner  planner
	tracer   history.ProcessTracer // for this client's own attempts (a twin has its own)
	chats    []string              // chat names by local index
	nextPID  int
	pid      int
	cursor   []uint64 // by chat index: the last sequence this client saw
	lastChat int
	sender   string // this client's user id
	lastKey  string // key of this client's previous send (to chat lastChat)
	// lastContent and lastHash are what lastKey's message was first sent
	// with (a reuse of the key with other content leaves them).
	lastContent, lastHash string
	stop                  <-chan struct{}
	mu                    sync.Mutex // guards cursor while a twin runs
	// retryAfter is what the last answer to this client's own attempt
	// asked it to wait before retrying (Retry-After); jitter spreads its
	// back-off, from a source of its own so plans stay as seeded.
	retryAfter time.Duration
	jitter     *rand.Rand
	// lateness is how far this writer's open loop fell behind.
	lateness Lateness
	// late are the acknowledged sends due again DuplicateLateAfter after
	// their ack, oldest first (resendLate).
	late []lateSend
	// acked, unless nil (no receivers), is told when each new message's
	// persist was sent and answered ok: its fan-out is timed from there.
	acked func(chat string, seq uint64, invoke, ack time.Time)
}

// lateSend is an acknowledged send to repeat once due (unix ns).
type lateSend struct {
	due     int64
	chatIdx int
	req     sequencer.Request
}

func newWriter(id int, cfg *Config, tgt target.Target, rec *history.Recorder, lat *latencies, chats []string) *writer {
	w := &writer{
		id: id, cfg: cfg, target: tgt, asUser: target.ReadsAsUser(tgt), rec: rec, lat: lat.shard(id),
		planner: newPlanner(cfg, id), chats: chats, tracer: history.ProcessTracer{Rec: rec},
		cursor: make([]uint64, len(chats)), lastChat: -1, sender: SenderID(id),
		jitter: rand.New(rand.NewPCG(uint64(cfg.Seed), uint64(id))),
	}
	w.pid = w.newPID()
	return w
}

// newPID hands out process ids writer, writer+C, writer+2C…, where C
// counts the clients (writers, then readers), so ids are deterministic per
// writer and never shared between clients.
func (w *writer) newPID() int {
	pid := w.id + w.nextPID*w.cfg.clients()
	w.nextPID++
	return pid
}

// run issues operations until ops are done, stop closes (the run's
// duration is over: operations in flight still complete) or ctx ends (an
// interrupt: operations in flight end with unknown outcomes). An open
// loop's pace (nil: closed loop) gives each operation's intended start.
func (w *writer) run(ctx context.Context, stop <-chan struct{}, ops int, start int64, pace pace) {
	w.stop = stop
	end := start + int64(w.cfg.Duration)
	for op := 0; ops == 0 || op < ops; op++ {
		if w.stopped(ctx) {
			if pace != nil && w.cfg.Duration > 0 {
				// The starts due before the end, up to the writer's
				// quota under --ops as well: with both, the duration
				// ended the run and its due starts went uncounted (an
				// outside tester's: 596 of 2400 never made, unsent 0).
				due := pace.due(min(end, w.rec.Now()))
				if ops > 0 {
					due = min(due, int64(ops))
				}
				w.lateness.Unsent += max(due-int64(op), 0)
			}
			return
		}
		w.rec.YieldToFlusher()
		if op%writerYieldEvery == writerYieldEvery-1 {
			runtime.Gosched()
		}
		intended := atSend
		if pace != nil {
			at, threshold, ok := pace.intended(op)
			if !ok {
				at = math.MaxInt64 // no start left in the run: wait for its end
			}
			if d := time.Duration(at - w.rec.Now()); d > 0 {
				select {
				case <-ctx.Done():
					return
				case <-stop:
					return // its next start was not due before the end
				case <-time.After(d):
				}
			}
			intended = at
			w.lateness.start(time.Duration(w.rec.Now()-intended), threshold)
		}
		w.resendLate(ctx)
		plan := w.planner.plan(op)
		if plan.Sync {
			w.sync(ctx, plan.Chat, plan.OutsiderSync, intended)
		} else {
			w.send(ctx, &plan, intended)
		}
	}
}

// send delivers one logical message: first attempt, retries with the same
// key while the outcome is unknown, and the configured duplicates.
func (w *writer) send(ctx context.Context, plan *OpPlan, intended int64) {
	chatIdx, key, content, hash := plan.Chat, plan.Key, plan.content, plan.payloadHash
	sender, claimed := w.sender, ""
	other := ""
	if plan.Forged && plan.forgedByMember {
		other = w.otherMember(chatIdx)
	}
	switch {
	case other != "":
		// Made as the writer's own user, a member, the body naming
		// another member: refused as an outsider's forgery is (403
		// auth.sender_mismatch); a service trusting the body stores it
		// as the other member's, and what its pushes and syncs show of
		// the message's sender is not the persist's (its caller's).
		// Recorded as the caller's; no duplicate and no twin, and the key
		// is not this client's last, as an outsider's.
		claimed = other
		plan.Raced, plan.DuplicateAfterOK, plan.DuplicateLate = false, false, false
		w.count(func(c *Counts) { c.ForgedSends++ })
	case plan.Forged:
		// Made as a user who is not a member of the chat, the body naming
		// the writer's own user, a member: the call's identity is the
		// sender (the API takes it from the request, never the body), so
		// it must be refused; a service trusting the body stores it as
		// the member's. Recorded as the caller's, an outsider send.
		sender, claimed = OutsiderID(w.id), w.sender
		plan.Outsider = true
		plan.Raced, plan.DuplicateAfterOK, plan.DuplicateLate = false, false, false
		w.count(func(c *Counts) { c.ForgedSends++ })
	case plan.Outsider:
		// From a user who is not a member of the chat: it must be refused
		// (not_a_member). No duplicate and no twin, and the key is not
		// this client's last: the send tests the membership check alone.
		sender = OutsiderID(w.id)
		plan.Raced, plan.DuplicateAfterOK, plan.DuplicateLate = false, false, false
		w.count(func(c *Counts) { c.OutsiderSends++ })
	case plan.ReuseKey && w.lastKey != "":
		// A client bug: an old key with new content.
		chatIdx, key, content = w.lastChat, w.lastKey, "other content under "+w.lastKey
		hash = target.PayloadHash(content)
		w.count(func(c *Counts) { c.KeysReused++ })
	case plan.KeyAcrossChats && w.lastKey != "" && w.lastChat != chatIdx:
		// Not a reuse: a key is unique within its chat, so this is a
		// new message of this chat with its own content.
		key = w.lastKey
		w.count(func(c *Counts) { c.KeysAcrossChats++ })
	case plan.KeyAcrossSenders && w.lastKey != "" && w.cfg.Writers > 1:
		// Another member of the chat (every writer's user is one of
		// every chat) sends this client's last key there, with its
		// content: one message under key_scope chat, two under client
		// and sender, each sender's own.
		chatIdx, key, content, hash = w.lastChat, w.lastKey, w.lastContent, w.lastHash
		sender = SenderID((w.id + 1) % w.cfg.Writers)
		w.count(func(c *Counts) { c.KeysAcrossSenders++ })
	case plan.OddKey:
		// A new message under an unusual key: a long one, or the last
		// key in the other case, sent to the chat that key went to.
		odd, ok := oddKey(plan.oddLong, key, w.lastKey)
		if !ok {
			break
		}
		if !plan.oddLong {
			chatIdx = w.lastChat
		}
		key = odd
		w.count(func(c *Counts) { c.OddKeys++ })
	}
	if !plan.Outsider && claimed == "" {
		if chatIdx != w.lastChat || key != w.lastKey {
			// A key's first message in a chat.
			w.lastContent, w.lastHash = content, hash
		}
		w.lastChat, w.lastKey = chatIdx, key
	}
	req := sequencer.Request{
		Chat: w.chats[chatIdx], Key: key, Sender: sender, ClaimedSender: claimed,
		Content: content, PayloadHash: hash,
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
			intended = atSend
		}
		var twin *sync.WaitGroup
		if plan.Raced && attempt == 0 {
			// The two sends overlap for certain: each waits after its
			// idempotency look-up for the other's.
			race := sequencer.NewRace(2)
			twinFaults := plan.TwinFaults
			req.Faults.Race, twinFaults.Race = race[0], race[1]
			twin = w.startTwin(ctx, req, twinFaults, chatIdx)
		}
		res := w.persistOnce(ctx, &w.tracer, w.pid, req, intended, chatIdx)
		if twin != nil {
			twin.Wait()
		}
		if res == history.KindInfo {
			w.pid = w.newPID()
			continue
		}
		if res == history.KindOK && plan.DuplicateAfterOK {
			req.Faults = sequencer.FaultPlan{}
			w.count(func(c *Counts) { c.DuplicatesSent++ })
			if w.persistOnce(ctx, &w.tracer, w.pid, req, atSend, chatIdx) == history.KindInfo {
				w.pid = w.newPID()
			}
		}
		if res == history.KindOK && plan.DuplicateLate {
			req.Faults = sequencer.FaultPlan{}
			w.late = append(w.late, lateSend{due: w.rec.Now() + int64(w.cfg.DuplicateLateAfter), chatIdx: chatIdx, req: req})
		}
		return
	}
}

// otherMember is a member of chat chatIdx other than the writer's user:
// the next writer's user (every writer's is a member of every chat), or
// the chat's first receiver's; "" when there is none.
func (w *writer) otherMember(chatIdx int) string {
	switch {
	case w.cfg.Writers > 1:
		return SenderID((w.id + 1) % w.cfg.Writers)
	case w.cfg.Receivers > 0:
		return ReceiverUser(w.chats[chatIdx], 0)
	}
	return ""
}

// resendLate sends again, before the writer's next operation, the
// acknowledged sends now due (--duplicate-late): each must be answered as
// a replay of its message however long after. A service that forgot its
// idempotency records after 200 ms passed, every duplicate of chatseq's
// coming within milliseconds of its ack (an outside tester's). Those not
// due when the writers stop are not sent.
func (w *writer) resendLate(ctx context.Context) {
	now := w.rec.Now()
	sent := 0
	for sent < len(w.late) && w.late[sent].due <= now && !w.stopped(ctx) {
		l := w.late[sent]
		w.count(func(c *Counts) { c.DuplicatesSent++ })
		if w.persistOnce(ctx, &w.tracer, w.pid, l.req, atSend, l.chatIdx) == history.KindInfo {
			w.pid = w.newPID()
		}
		sent++
	}
	if sent > 0 {
		w.late = append(w.late[:0], w.late[sent:]...)
	}
}

// startTwin sends req with other faults from a second client (a new
// process) at the same time, as ADR-004's race; wait on the result.
func (w *writer) startTwin(ctx context.Context, req sequencer.Request, faults sequencer.FaultPlan, chatIdx int) *sync.WaitGroup {
	req.Faults = faults
	pid := w.newPID()
	w.count(func(c *Counts) { c.ConcurrentDuplicates++ })
	var twin sync.WaitGroup
	twin.Add(1)
	go func() {
		defer twin.Done()
		w.persistOnce(ctx, &history.ProcessTracer{Rec: w.rec}, pid, req, atSend, chatIdx)
	}()
	return &twin
}

// persistOnce is one attempt by process pid, recorded as invoke then
// ok/fail/info, returning the completion kind. The attempt counts as sent
// when its invoke is stamped. tr is the process's tracer, not shared with
// an attempt running at the same time.
func (w *writer) persistOnce(ctx context.Context, tr *history.ProcessTracer, pid int, req sequencer.Request, intended int64, chatIdx int) history.Kind {
	sent := w.rec.Record(&history.Event{
		Kind: history.KindInvoke, Process: pid, F: history.FPersist, Chat: req.Chat,
		Key: req.Key, Sender: req.Sender, PayloadHash: req.PayloadHash,
	})
	if intended == atSend {
		intended = sent
	}
	tr.Process = pid
	out, err := w.target.Persist(ctx, req, tr)
	done := w.rec.Now()

	ev := history.Event{Process: pid, F: history.FPersist, Chat: req.Chat, Key: req.Key}
	kind, code := target.Completion(err)
	ev.Kind, ev.Error = kind, code
	if pid == w.pid {
		w.retryAfter = retryDelay(err) // a twin runs under another pid
	}
	if kind == history.KindOK {
		ev.Seq, ev.MessageID, ev.Dedup = out.Seq, out.MessageID, out.Dedup
	}
	w.rec.RecordAt(&ev, done) // when the answer came, not when it was written down
	if kind == history.KindOK {
		w.advanceCursor(chatIdx, out.Seq)
		if w.acked != nil && !out.Dedup {
			w.acked(req.Chat, out.Seq, w.rec.Time(sent), w.rec.Time(done))
		}
	}
	w.lat.record(done, [stepCount]int64{
		StepAllocate: out.Timings.Allocate, StepPersist: out.Timings.Persist,
		StepPublish: out.Timings.Publish, StepEndToEnd: done - intended,
		StepService: done - sent,
	}, opCounts{
		kind: kind, code: code, dedup: out.Dedup,
		attempts: int64(out.Attempts), faulted: req.Faults.Any(),
		chat: int32(chatIdx), allocated: out.Allocated > 0, steps: out.Steps,
	})
	return kind
}

// writerYieldEvery is how many operations a writer runs before it lets
// another goroutine have its core. Against the embedded store a writer
// never blocks, so with more writers than cores one woken from a wait (a
// chat's lock, a concurrent duplicate's twin) waited, in the middle of its
// operation, until a writer yielded to the flusher or was preempted after
// 10 ms. Yielding every 16 operations took a 5 s run's end-to-end p99 from
// 55 to 17 µs and its p99.9 from 0.85 ms to 0.14 ms, at no measurable cost
// a persist (BenchmarkPersistRecorded).
const writerYieldEvery = 16

// atSend is the intended start of a closed-loop operation or a retry: the
// moment it is sent (its invoke's time).
const atSend int64 = -1

// advanceCursor raises the client's last seen sequence of a chat.
func (w *writer) advanceCursor(chatIdx int, seq uint64) {
	w.mu.Lock()
	if seq > w.cursor[chatIdx] {
		w.cursor[chatIdx] = seq
	}
	w.mu.Unlock()
}

// sync reads the writer's last chat after the last sequence it saw, then
// advances its cursor as a real client would. On a target that reads as a
// user it reads as the writer's user, or, from outside, as one who is a
// member of no chat (its sync line names the user either way).
func (w *writer) sync(ctx context.Context, plannedChat int, outsider bool, intended int64) {
	chatIdx := w.lastChat
	if chatIdx < 0 {
		chatIdx = plannedChat
	}
	chat := w.chats[chatIdx]
	after := w.cursor[chatIdx] // no twin runs now
	var user string
	if w.asUser != nil {
		user = w.sender
		if outsider {
			user = OutsiderID(w.id)
			w.count(func(c *Counts) { c.OutsiderSyncs++ })
		}
	}
	sent := w.rec.Record(&history.Event{
		Kind: history.KindInvoke, Process: w.pid, F: history.FSync, Chat: chat,
		After: after, Limit: w.cfg.SyncLimit, Sender: user,
	})
	if intended == atSend {
		intended = sent
	}
	var msgs []store.Message
	var err error
	if user != "" {
		msgs, err = w.asUser.SyncAs(ctx, user, chat, after, w.cfg.SyncLimit)
	} else {
		msgs, err = w.target.Sync(ctx, chat, after, w.cfg.SyncLimit)
	}
	done := w.rec.Now()
	ev := history.Event{Process: w.pid, F: history.FSync, Chat: chat}
	ev.Kind, ev.Error = target.Completion(err)
	if ev.Kind == history.KindOK {
		ev.Sync = target.SyncResultOf(msgs)
	}
	w.rec.RecordAt(&ev, done)
	if ev.Kind == history.KindInfo {
		w.pid = w.newPID()
	}
	if n := len(msgs); ev.Kind == history.KindOK && n > 0 {
		w.advanceCursor(chatIdx, msgs[n-1].Seq)
	}
	w.lat.record(done, [stepCount]int64{StepSync: done - intended}, opCounts{sync: true, kind: ev.Kind, code: ev.Error, chat: int32(chatIdx)})
}

// maxRetryBackoff caps a client's wait between retries.
const maxRetryBackoff = 50 * time.Millisecond

// backOff waits before retry number attempt (1, 2, …), doubling from
// RetryBackoff with jitter, as the consistency strategy's clients do, and
// never less than the last answer's Retry-After; false if the run ended
// meanwhile.
func (w *writer) backOff(ctx context.Context, attempt int) bool {
	d := w.cfg.RetryBackoff
	for i := 1; i < attempt && d < maxRetryBackoff; i++ {
		d *= 2
	}
	d = max(jittered(w.jitter, min(d, maxRetryBackoff)), w.retryAfter)
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

// count applies a rare count update (a retry, a duplicate sent) to this
// second's counts, which add up to the run's.
func (w *writer) count(f func(*Counts)) { w.lat.count(w.rec.Now(), f) }
