// Package ledger is the server-assigned-sequences ADR
// (ledger-server-assigned-sequences.md) as a chatseq target: three ledger
// servers in process over hashicorp/raft's in-memory transport; writes
// carry a 16-byte idempotency key; the leader checks its idempotency cache
// and proposes; the state machine assigns each chat's sequence when it
// applies the entry, so sequences are gapless and the same on every node.
// Faults: the leader crashes with a write in flight, leadership moves
// mid-write, the leader is cut off for a window.
package ledger

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/hashicorp/raft"
	"github.com/oklog/ulid/v2"

	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/store"
	tg "github.com/chatseq/chatseq/target"
)

// Error codes this target adds to the history's vocabulary.
const (
	CodeNoLeader       = "no_leader"       // no node led in time: nothing was proposed
	CodeLeadershipLost = "leadership_lost" // the entry was proposed; it may still commit
	CodeTimeout        = "timeout"
)

// Config is how a ledger target behaves.
type Config struct {
	Nodes int
	// IdempotencyTTL is the ADR's 24h cache TTL, for the leader cache and
	// the state machine's key table alike.
	IdempotencyTTL time.Duration
	CacheSize      int // leader cache entries
	MaxKeys        int // state machine key records
	Timing         Timing
	// CrashEvery and TransferEvery are the least time between two real
	// leader crashes and two leadership transfers; RestartAfter is how
	// long a crashed node stays down.
	CrashEvery, TransferEvery, RestartAfter time.Duration
	// LeaderWait bounds how long a write waits for a leader.
	LeaderWait time.Duration
	// WriteTimeout bounds how long a write waits for its entry.
	WriteTimeout time.Duration
}

// DefaultConfig is what --target ledger runs.
func DefaultConfig() Config {
	return Config{
		Nodes: 3, IdempotencyTTL: 24 * time.Hour, CacheSize: 100_000, MaxKeys: 1_000_000,
		Timing:     DefaultTiming,
		CrashEvery: time.Second, TransferEvery: 250 * time.Millisecond, RestartAfter: 300 * time.Millisecond,
		LeaderWait: 5 * time.Second, WriteTimeout: 10 * time.Second,
	}
}

// target is one run's ledger cluster.
type target struct {
	cfg     Config
	variant Variant
	cl      *cluster
	nem     *nemesis
	// pending maps a proposed entry's message id to the write that
	// proposed it: the first node to apply the entry traces the sequence
	// it got, while the write is still waiting.
	pending sync.Map
}

// pendingAlloc is a proposed write waiting for its entry. A trace belongs
// to an outstanding persist (HISTORY.md), so once the write has answered
// (closed), a late apply of its entry traces nothing: the write's unknown
// outcome explains the untraced sequence.
type pendingAlloc struct {
	mu     sync.Mutex
	tr     sequencer.Tracer
	start  int64
	closed bool
	// seq and applied, once traced: the sequence and when it was applied.
	seq     uint64
	applied int64
}

func (p *pendingAlloc) trace(chat string, seq uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed {
		p.seq, p.applied = seq, p.tr.Now()
		p.tr.Allocated(chat, seq, p.start, p.applied) // applied: the sequence exists now
		p.closed = true                               // one trace per entry, from the first node to apply it
	}
}

// close ends the tracing and returns the sequence the entry was given, in
// how long from its proposal (0 when it was not applied in time).
func (p *pendingAlloc) close() (seq uint64, nanos int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	if p.seq == 0 {
		return 0, 0
	}
	return p.seq, p.applied - p.start
}

// Factory builds a fresh three-node cluster per run.
func Factory(cfg Config) tg.Factory {
	return func(ctx context.Context, env tg.Env) (tg.Target, error) {
		variant, err := ParseVariant(string(env.Variant))
		if err != nil {
			return nil, err
		}
		t := &target{cfg: cfg, variant: variant}
		newFSM := func() *fsm { return newFSM(variant, cfg.IdempotencyTTL, cfg.MaxKeys, t.assigned) }
		newCache := func() *leaderCache { return newLeaderCache(cfg.IdempotencyTTL, cfg.CacheSize) }
		if t.cl, err = startCluster(cfg.Nodes, cfg.Timing, newFSM, newCache); err != nil {
			return nil, err
		}
		if _, err := t.cl.waitLeader(ctx, cfg.LeaderWait); err != nil {
			t.cl.shutdown()
			return nil, fmt.Errorf("ledger: first election: %w", err)
		}
		t.nem = startNemesis(t.cl, cfg, env)
		return t, nil
	}
}

// assigned is the state machines' hook: the write that proposed the entry
// traces its allocation, once.
func (t *target) assigned(messageID, chat string, seq uint64) {
	if v, ok := t.pending.LoadAndDelete(messageID); ok {
		v.(*pendingAlloc).trace(chat, seq)
	}
}

// Persist is the ADR's write path: leader cache, propose, apply-time
// sequence, cache the result, answer.
func (t *target) Persist(ctx context.Context, req sequencer.Request, tr sequencer.Tracer) (sequencer.Outcome, error) {
	w := &write{t: t, ctx: ctx, req: req, tr: sequencer.OrWallClock(tr)}
	err := w.run()
	return w.out, err
}

// write is one Persist in progress.
type write struct {
	t   *target
	ctx context.Context
	req sequencer.Request
	tr  sequencer.Tracer
	out sequencer.Outcome
}

func (w *write) run() error {
	defer w.req.Faults.Race.Leave()
	k16 := key16(w.req.Key)
	contentType := w.req.ContentType
	if contentType == "" {
		contentType = "text/plain"
	}
	hash := payloadHash(w.req.Chat, w.req.Sender, contentType, w.req.Content)
	sc := scope(w.req.Chat, w.req.Sender, k16)
	deadline := time.Now().Add(w.t.cfg.LeaderWait)
	for {
		nd, err := w.t.cl.waitLeader(w.ctx, time.Until(deadline))
		if err != nil {
			return &sequencer.Error{Code: CodeNoLeader, Definite: true, Err: err}
		}
		r, _, cache, up := nd.live()
		if !up {
			continue
		}
		// Step 2: the leader's cache. A stale-read plan is a cache that
		// missed: the node just became leader, or evicted the key.
		var e cacheEntry
		hit := false
		if !w.req.Faults.StaleIdempotencyRead {
			e, hit = cache.get(sc, time.Now())
		}
		w.out.Steps.IdempotencyHit = hit
		// A racing twin checks the cache before either goes on (only the
		// first pass waits).
		w.req.Faults.Race.Arrive(w.ctx)
		if hit {
			if !bytes.Equal(e.payloadHash, hash) {
				return &sequencer.Error{Code: CodeKeyReused, Definite: true}
			}
			w.out.Result = sequencer.Result{Seq: e.seq, MessageID: e.messageID, Dedup: true}
			return nil
		}
		// The leader dies before proposing: nothing entered the log, but
		// the client cannot know.
		if w.req.Faults.CrashBeforeAllocate {
			return &sequencer.Error{Code: sequencer.CodeCrashBeforeAllocate}
		}
		w.t.nem.slow(w.ctx)

		// Step 3: propose, with no sequence (unless the variant assigns
		// one here).
		cmd := command{
			Op: opWrite, Chat: w.req.Chat, Sender: w.req.Sender, Key: w.req.Key, Key16: k16,
			PayloadHash: hash, MessageID: "msg_" + ulid.Make().String(),
			Content: w.req.Content, ContentType: contentType, Time: time.Now().UnixNano(),
		}
		start := w.tr.Now()
		pending := &pendingAlloc{tr: w.tr, start: start}
		if w.t.variant == ProposeTimeSequence {
			cmd.Seq = nd.nextSeq(w.req.Chat)
			w.out.Allocated = cmd.Seq
			end := w.tr.Now()
			w.out.Timings.Allocate += end - start
			w.tr.Allocated(w.req.Chat, cmd.Seq, start, end)
		} else {
			w.t.pending.Store(cmd.MessageID, pending)
		}
		w.out.Attempts++
		// The log entry is the design's transaction: message, key record
		// and sequence apply together or not at all.
		w.out.Steps.Transactions++
		f := r.Apply(cmd.encode(), w.t.cfg.WriteTimeout)
		w.midWrite(nd)
		err = w.await(r, f)
		w.out.Timings.Persist += w.tr.Now() - start
		// From here on this write answers: its entry traces no more.
		if seq, nanos := pending.close(); seq != 0 {
			// Applied in time: the apply allocated and stored at once.
			w.out.Allocated, w.out.Steps.Committed = seq, true
			w.out.Timings.Allocate += nanos
		}
		w.t.pending.Delete(cmd.MessageID)
		if err != nil {
			if notAppended(err) {
				// Nothing entered the log: ask the next leader.
				time.Sleep(time.Millisecond)
				continue
			}
			return &sequencer.Error{Code: outcomeCode(err), Err: err}
		}
		return w.answer(f.Response().(result), cache, sc, hash)
	}
}

// midWrite injects the faults that strike with this write in flight.
func (w *write) midWrite(nd *node) {
	switch {
	case w.req.Faults.CrashInPersist:
		w.t.nem.crashLeader(nd)
	case w.req.Faults.CrashAfterAllocate:
		w.t.nem.transferLeadership(nd)
	}
}

// await waits for the entry to be applied on the leader.
func (w *write) await(r *raft.Raft, f raft.ApplyFuture) error {
	return awaitFuture(w.ctx, r, f, w.t.cfg.WriteTimeout)
}

// answer is steps 6 and 7.
func (w *write) answer(res result, cache *leaderCache, sc string, hash []byte) error {
	switch {
	case res.Err != "":
		return &sequencer.Error{Code: res.Err, Definite: true}
	case res.Reused:
		// Not retryable: a client bug (the ADR).
		return &sequencer.Error{Code: CodeKeyReused, Definite: true}
	}
	w.out.Result = sequencer.Result{Seq: res.Seq, MessageID: res.MessageID, Dedup: res.Dedup}
	if res.Dedup {
		// The state machine found the key's record at apply (a twin's
		// entry came first): the entry's condition failed.
		w.out.Steps.Conflicts++
	} else {
		w.out.Allocated, w.out.Steps.Committed = res.Seq, true
	}
	cache.put(cacheEntry{scope: sc, seq: res.Seq, messageID: res.MessageID, payloadHash: hash}, time.Now())
	// The server dies with the entry applied and the answer unsent, or
	// died around the commit: either way the client cannot know.
	if w.req.Faults.CrashInPersist {
		return &sequencer.Error{Code: sequencer.CodeCrashInPersist}
	}
	if w.req.Faults.CrashAfterPersist {
		return &sequencer.Error{Code: sequencer.CodeCrashAfterPersist}
	}
	return nil
}

// notAppended reports errors after which the entry is certainly not in any
// log: raft refused it before appending.
func notAppended(err error) bool {
	return errors.Is(err, raft.ErrNotLeader) || errors.Is(err, raft.ErrEnqueueTimeout) ||
		errors.Is(err, raft.ErrLeadershipTransferInProgress)
}

// outcomeCode names an error after which the entry may still commit.
func outcomeCode(err error) string {
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return CodeTimeout
	case errors.Is(err, raft.ErrRaftShutdown):
		return sequencer.CodeCrashInPersist
	}
	return CodeLeadershipLost
}

// nextSeq is propose-time-sequence's leader counter: one past what the
// leader has handed out or applied.
func (n *node) nextSeq(chat string) uint64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	v := n.seqs[chat]
	if f := n.fsm; f != nil {
		f.mu.RLock()
		if ch := f.st.Chats[chat]; ch != nil {
			v = max(v, ch.Last)
		}
		f.mu.RUnlock()
	}
	n.seqs[chat] = v + 1
	return v + 1
}

// propose applies an administrative entry through the leader, retrying
// when leadership moves before it is appended, and when it is lost while
// the entry commits: creating a chat and setting its counter are
// idempotent (applied twice, they leave the state as once), so an entry
// that may have committed is proposed again. A machine busy with other
// jobs starves the heartbeats, and a run's setup failed on one election.
func (t *target) propose(ctx context.Context, c command) (result, error) {
	deadline := time.Now().Add(t.cfg.LeaderWait)
	for {
		nd, err := t.cl.waitLeader(ctx, time.Until(deadline))
		if err != nil {
			return result{}, err
		}
		r, _, _, up := nd.live()
		if !up {
			continue
		}
		f := r.Apply(c.encode(), t.cfg.WriteTimeout)
		if err := awaitFuture(ctx, r, f, t.cfg.WriteTimeout); err != nil {
			if (notAppended(err) || errors.Is(err, raft.ErrLeadershipLost)) && time.Now().Before(deadline) {
				continue
			}
			return result{}, err
		}
		res := f.Response().(result)
		if res.Err != "" {
			return res, errors.New(res.Err)
		}
		return res, nil
	}
}

// CreateChat adds the chat (a vault) at sequence 0.
func (t *target) CreateChat(ctx context.Context, chat string, _ []string) error {
	_, err := t.propose(ctx, command{Op: opCreate, Chat: chat})
	return err
}

// SetCounter puts the chat's last sequence at v.
func (t *target) SetCounter(ctx context.Context, chat string, v uint64) error {
	_, err := t.propose(ctx, command{Op: opSetCounter, Chat: chat, Value: v})
	return err
}

// DeleteCounter has nothing to delete: the sequence is state machine
// state, replicated with everything else.
func (t *target) DeleteCounter(context.Context, string) error {
	return errors.New("ledger: no counter item to delete (sequences are state machine state)")
}

// Sync reads the chat from the leader's state machine (ADR-001 §4). The
// first read of a term waits for a barrier, so the new leader has applied
// what earlier leaders acknowledged; every read confirms leadership first,
// so a cut-off leader does not answer from stale state.
func (t *target) Sync(ctx context.Context, chat string, after uint64, limit int) ([]store.Message, error) {
	nd, err := t.cl.waitLeader(ctx, t.cfg.LeaderWait)
	if err != nil {
		return nil, &sequencer.Error{Code: CodeNoLeader, Definite: true, Err: err}
	}
	r, f, _, up := nd.live()
	if !up {
		return nil, &sequencer.Error{Code: CodeNoLeader, Definite: true}
	}
	if term := r.CurrentTerm(); nd.readTerm.Load() != term {
		if err := awaitFuture(ctx, r, r.Barrier(t.cfg.WriteTimeout), t.cfg.WriteTimeout); err != nil {
			return nil, &sequencer.Error{Code: CodeNoLeader, Definite: true, Err: err}
		}
		nd.readTerm.Store(term)
	}
	if err := awaitFuture(ctx, r, r.VerifyLeader(), t.cfg.WriteTimeout); err != nil {
		return nil, &sequencer.Error{Code: CodeNoLeader, Definite: true, Err: err}
	}
	msgs, ok := f.read(chat, after, limit)
	if !ok {
		return nil, &sequencer.Error{Code: CodeUnknownChat, Definite: true}
	}
	return msgs, nil
}

// Settle ends the faults, brings every node back and waits until all have
// applied the whole log.
func (t *target) Settle(ctx context.Context) error {
	t.nem.stop()
	_, err := t.cl.converge(ctx, 30*time.Second)
	return err
}

// Dump reads every node's state machine. Nodes that disagree are a run
// error: a replicated state machine that diverges has no final state to
// check.
func (t *target) Dump(ctx context.Context, chats []string) (store.State, error) {
	nd, err := t.cl.converge(ctx, 30*time.Second)
	if err != nil {
		return store.State{}, err
	}
	_, lf, _, _ := nd.live()
	want := lf.dump(chats)
	for _, n := range t.cl.nodes {
		_, f, _, up := n.live()
		if !up {
			return store.State{}, fmt.Errorf("ledger: %s is down at the end of the run", n.id)
		}
		if got := f.dump(chats); !reflect.DeepEqual(got, want) {
			return store.State{}, fmt.Errorf("ledger: state machines disagree: %s", stateDiff(nd.id, want, n.id, got))
		}
	}
	return want, nil
}

// Close stops the faults and the cluster.
func (t *target) Close() error {
	t.nem.stop()
	t.cl.shutdown()
	return nil
}

// Faults reports what the nemesis did.
func (t *target) Faults() Counts { return t.nem.counts() }

var _ tg.Target = (*target)(nil)
