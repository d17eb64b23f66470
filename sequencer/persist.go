package sequencer

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/chatseq/chatseq/store"
)

// Request is one PersistMessage call.
type Request struct {
	Chat        string
	Key         string // client_message_id
	Sender      string
	Content     string
	ContentType string
	PayloadHash string
	// ClaimedSender, when set, is the sender the request's body names in
	// place of Sender, who makes the call: a send impersonating another
	// user (bench --forged-senders), which the API refuses (403
	// auth.sender_mismatch). Only a target that tells its caller from the
	// body's sender sends it (target.SenderClaimer: the http target); the
	// in-process core takes Sender alone.
	ClaimedSender string
	Faults        FaultPlan
}

// Result is the ACK.
type Result struct {
	Seq       uint64
	MessageID string
	Dedup     bool
}

// Timings are the durations of the steps the report shows (ADR-004 steps
// 3 to 5), in nanoseconds on the tracer's clock; a step that did not run is
// 0. Steps 1 and 2 are not timed: a clock read costs as much as an
// embedded-store look-up.
type Timings struct {
	Allocate, Persist, Publish int64
}

// Outcome is what one Persist did, returned with or without an error.
type Outcome struct {
	Result
	Timings   Timings
	Allocated uint64 // the sequence step 3 handed out, 0 if none
	Attempts  int    // optimistic transactions tried (1 under two-phase)
	Steps     StepEvents
}

// StepEvents is what the steps met, for ADR-004 §12's metrics; other
// designs fill in the steps they have (docs/metrics.md).
type StepEvents struct {
	IdempotencyHit bool  // step 1 found the key's record (a §12 idempotency hit)
	AllocateFailed bool  // step 3's counter ADD returned an error
	Transactions   int32 // step 4 transactions sent to the store
	Conflicts      int32 // of those, cancelled by a failed condition (ConditionalCheckFailed)
	Committed      bool  // a step 4 transaction applied: the allocated sequence holds a message
}

// systemClock times steps when the caller passes no tracer.
type systemClock struct{ base time.Time }

func (c systemClock) Now() int64                           { return int64(time.Since(c.base)) }
func (systemClock) Allocated(string, uint64, int64, int64) {}

var defaultTracer Tracer = systemClock{base: time.Now()}

// OrWallClock is tr, or when it is nil a tracer that times steps on the
// system's monotonic clock and traces nothing: every design's Persist
// accepts a nil tracer.
func OrWallClock(tr Tracer) Tracer {
	if tr == nil {
		return defaultTracer
	}
	return tr
}

// Persist runs ADR-004's persist path. On error the returned error is an
// *Error telling whether the operation definitely failed or its outcome is
// unknown; the Outcome still carries timings and any allocated sequence.
func (c *Core) Persist(ctx context.Context, req Request, tr Tracer) (Outcome, error) {
	tr = OrWallClock(tr)
	p := persistCalls.Get().(*persistCall)
	*p = persistCall{core: c, ctx: ctx, req: req, tr: tr, store: c.cfg.Store}
	if req.Faults.StoreError.Kind != NoStoreError {
		p.faulting = faultingStore{Store: c.cfg.Store, fault: req.Faults.StoreError, tr: tr}
		p.store = &p.faulting
	}
	err := p.run()
	p.resolveAllocation() // SyncWatermark: whatever path run took
	out := p.out
	*p = persistCall{} // keep no request alive in the pool
	persistCalls.Put(p)
	if c.marks != nil && err == nil && out.Seq > 0 {
		// SyncWatermark: ACK only once a sync would return the message.
		if m, werr := c.marks.chat(ctx, c.cfg.Store, req.Chat); werr == nil {
			m.waitPast(out.Seq)
		}
	}
	return out, err
}

// persistCalls recycles the calls' storage: a call and its step-4 items
// are most of a persist's allocation, and stores keep no item pointer
// after TransactWrite returns.
var persistCalls = sync.Pool{New: func() any { return new(persistCall) }}

// persistCall is one Persist in progress.
type persistCall struct {
	core *Core
	ctx  context.Context
	req  Request
	tr   Tracer
	out  Outcome
	now  time.Time
	mark *chatMark // SyncWatermark: out.Allocated is in flight on it

	// Step 4's items live here so one allocation holds the whole call.
	msg   store.Message
	rec   store.IdempotencyRecord
	items [3]store.TxItem

	// faulting fails one store call when the plan has a store error.
	faulting faultingStore
	store    store.Store
}

func (p *persistCall) st() store.Store { return p.store }

func (p *persistCall) run() error {
	defer p.req.Faults.Race.Leave()
	// Step 1: idempotency look-up; a stale read is allowed because step 4's
	// condition catches what it misses.
	rec, hit, err := p.st().GetIdempotency(p.ctx, p.req.Chat, p.req.Key, false)
	if err != nil {
		return readFailed(err)
	}
	// A racing twin looks up before either goes on (ADR-004 scenario 4).
	p.req.Faults.Race.Arrive(p.ctx)
	if p.req.Faults.StaleIdempotencyRead {
		hit = false
	}
	if hit {
		p.out.Steps.IdempotencyHit = true
		if p.core.variant() == RetryReallocates {
			return p.reallocateOnRetry()
		}
		return p.replay(rec)
	}

	// Step 2: membership, strongly consistent; not a member is definite.
	if p.core.variant() != SkipMembership {
		member, err := p.st().IsMember(p.ctx, p.req.Chat, p.req.Sender)
		if err != nil {
			return readFailed(err)
		}
		if !member {
			return definite(CodeNotAMember, fmt.Errorf("%s is not a member of %s", p.req.Sender, p.req.Chat))
		}
	}
	// ADR-004 §10's first row: the server dies before step 3.
	if p.req.Faults.CrashBeforeAllocate {
		return unknown(CodeCrashBeforeAllocate, nil)
	}

	if p.core.cfg.Strategy == Optimistic {
		return p.persistOptimistic()
	}

	// Step 3: allocate.
	p.out.Attempts = 1
	seq, err := p.allocate()
	if err != nil {
		return err
	}
	if p.req.Faults.CrashAfterAllocate {
		p.resolveAllocation()
		return unknown(CodeCrashAfterAllocate, nil)
	}

	if d := p.req.Faults.CommitDelay; d > 0 {
		p.delayCommit(d)
	}

	// Step 4: persist the idempotency record and the message atomically.
	p.now = p.core.cfg.Now()
	msg, items := p.persistItems(seq)
	if p.core.variant() == AckBeforePersist {
		return p.ackThenPersist(msg, items)
	}
	if p.req.Faults.CrashInPersist {
		if p.req.Faults.CrashInPersistCommitted {
			p.out.Steps.Transactions++
			p.out.Steps.Committed = p.st().TransactWrite(p.ctx, items) == nil
		}
		p.resolveAllocation()
		return unknown(CodeCrashInPersist, nil)
	}
	// Timed from here: the tracer's work for step 3 (writing its trace)
	// is the client's, not the store's.
	start := p.tr.Now()
	err = p.st().TransactWrite(p.ctx, items)
	p.out.Timings.Persist = p.tr.Now() - start
	p.resolveAllocation()
	p.out.Steps.Transactions++
	if err != nil {
		return p.persistFailed(err)
	}
	p.out.Steps.Committed = true
	p.out.Result = Result{Seq: seq, MessageID: msg.MessageID}
	if p.req.Faults.CrashAfterPersist {
		return unknown(CodeCrashAfterPersist, nil)
	}

	// Step 5: publish, and only then ACK.
	return p.publish(msg)
}

// allocate is step 3: ADD sequence_counter 1 with attribute_exists.
func (p *persistCall) allocate() (uint64, error) {
	var mark *chatMark
	var floor uint64
	if p.core.marks != nil {
		m, err := p.core.marks.chat(p.ctx, p.st(), p.req.Chat)
		if err != nil {
			return 0, classifyStoreError(err)
		}
		mark, floor = m, m.begin()
	}
	start := p.tr.Now()
	var seq uint64
	var err error
	if p.core.variant() == RacyCounter {
		seq, err = p.racyAllocate()
	} else {
		seq, err = p.st().IncrementCounter(p.ctx, p.req.Chat)
	}
	end := p.tr.Now()
	if mark != nil {
		mark.allocated(floor, seq, err == nil)
		if err == nil {
			p.mark = mark
		}
	}
	p.out.Timings.Allocate += end - start
	if err != nil {
		p.out.Steps.AllocateFailed = true
		return 0, classifyStoreError(err)
	}
	p.out.Allocated = seq
	p.tr.Allocated(p.req.Chat, seq, start, end)
	return seq, nil
}

// racyAllocate is the broken read-then-write counter.
func (p *persistCall) racyAllocate() (uint64, error) {
	c, err := p.st().GetCounter(p.ctx, p.req.Chat, true)
	if err != nil {
		return 0, err
	}
	if c.Missing {
		return 0, store.ErrCounterMissing
	}
	runtime.Gosched() // widen the window another writer can interleave in
	c.Value++
	return c.Value, p.st().PutCounter(p.ctx, c, store.Unconditional)
}

// persistItems builds step 4's transaction in the call's own storage (one
// allocation per persist instead of four); an optimistic attempt appends
// its counter item to the returned slice.
func (p *persistCall) persistItems(seq uint64) (store.Message, []store.TxItem) {
	contentType := p.req.ContentType
	if contentType == "" {
		contentType = "text/plain"
	}
	p.msg = store.Message{
		Chat: p.req.Chat, Seq: seq, MessageID: p.core.ids.next("msg_", p.now),
		Sender: p.req.Sender, Key: p.req.Key, Content: p.req.Content,
		ContentType: contentType, CreatedAt: p.now,
	}
	p.rec = store.IdempotencyRecord{
		Chat: p.req.Chat, Key: p.req.Key, Seq: seq, MessageID: p.msg.MessageID,
		Sender: p.req.Sender, PayloadHash: p.req.PayloadHash,
		CreatedAt: p.now, ExpiresAt: p.now.Add(p.core.cfg.IdempotencyTTL),
	}
	idemCond := store.IfAbsent
	if v := p.core.variant(); v == UnconditionalIdempotency || v == RetryReallocates {
		idemCond = store.Unconditional
	}
	p.items[0] = store.TxItem{PutIdempotency: &p.rec, Condition: idemCond}
	p.items[1] = store.TxItem{PutMessage: &p.msg} // ADR-004 puts the message unconditionally
	return p.msg, p.items[:2]
}

// persistFailed handles a failed step 4. If the idempotency condition
// failed, a concurrent request with the same key won: answer its result and
// leave our sequence as a gap.
func (p *persistCall) persistFailed(err error) error {
	var canceled *store.TransactionCanceledError
	if errors.As(err, &canceled) && canceled.ConditionFailedAt(0) {
		p.out.Steps.Conflicts++
		rec, hit, rerr := p.st().GetIdempotency(p.ctx, p.req.Chat, p.req.Key, false)
		if rerr != nil {
			return readFailed(rerr) // the transaction wrote nothing
		}
		if hit {
			// The winner may have crashed before publishing: the same
			// replay rule as step 1 applies.
			return p.replay(rec)
		}
	}
	return classifyStoreError(err)
}

// replay answers a retry from the idempotency record.
func (p *persistCall) replay(rec store.IdempotencyRecord) error {
	p.out.Result = Result{Seq: rec.Seq, MessageID: rec.MessageID, Dedup: true}
	if !p.core.cfg.RepublishOnReplay {
		return nil
	}
	msg := store.Message{
		Chat: rec.Chat, Seq: rec.Seq, MessageID: rec.MessageID, Sender: rec.Sender,
		Key: rec.Key, Content: p.req.Content, ContentType: p.req.ContentType, CreatedAt: rec.CreatedAt,
	}
	if p.req.PayloadHash != rec.PayloadHash {
		// A key reused with other content: the event carries the message
		// as stored (ADR-001 Appendix B: "original content preserved"),
		// not the retry's content under the original's id, which every
		// subscriber was pushed.
		stored, found, err := p.storedMessage(rec)
		if err != nil {
			return unknown(CodePublishFailed, err)
		}
		if !found {
			return nil // nothing stored to publish again
		}
		msg.Content, msg.ContentType = stored.Content, stored.ContentType
	}
	return p.publish(msg)
}

// storedMessage reads the message rec answers for from the messages
// table.
func (p *persistCall) storedMessage(rec store.IdempotencyRecord) (store.Message, bool, error) {
	msgs, err := p.st().QueryMessages(p.ctx, store.Query{Chat: rec.Chat, After: rec.Seq - 1, Limit: 1})
	if err != nil || len(msgs) == 0 || msgs[0].Seq != rec.Seq || msgs[0].MessageID != rec.MessageID {
		return store.Message{}, false, err
	}
	return msgs[0], true, nil
}

// publish is step 5. A failure leaves the message persisted, so the client's
// outcome is unknown rather than failed.
func (p *persistCall) publish(msg store.Message) error {
	pub := p.core.cfg.Publisher
	if pub == nil {
		return nil
	}
	if p.req.Faults.PublishFails {
		return unknown(CodePublishFailed, nil)
	}
	start := p.tr.Now()
	now := p.core.cfg.Now()
	contentType := msg.ContentType
	if contentType == "" {
		contentType = "text/plain"
	}
	err := pub.Publish(p.ctx, MessagePersisted{
		EventID: p.core.ids.next("evt_", now), EventTime: now, Chat: msg.Chat,
		Seq: msg.Seq, MessageID: msg.MessageID, Sender: msg.Sender,
		Content: msg.Content, ContentType: contentType, CreatedAt: msg.CreatedAt,
	})
	p.out.Timings.Publish = p.tr.Now() - start
	if err != nil {
		return unknown(CodePublishFailed, err)
	}
	return nil
}

// delayCommit holds the persist between its allocation and its commit
// for d, or until its context ends (the commit then fails as a call on
// an ended context does).
func (p *persistCall) delayCommit(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-p.ctx.Done():
	}
}
