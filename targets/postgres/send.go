package postgres

import (
	"context"
	"errors"
	"hash/fnv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/oklog/ulid/v2"

	"github.com/chatseq/chatseq/sequencer"
)

// maxSequenceAttempts bounds §6's "retry sequence acquisition" after a
// collision on UNIQUE(conversation_id, sequence).
const maxSequenceAttempts = 3

// errSequenceCollision asks the send to take a new sequence (§6).
var errSequenceCollision = errors.New("sequence collision")

// Persist is §3's SendMessage: idempotency check, next sequence, one
// transaction (message, outbox event, idempotency record), commit, respond.
// Publishing is the relay's job, after the response.
func (t *target) Persist(ctx context.Context, req sequencer.Request, tr sequencer.Tracer) (sequencer.Outcome, error) {
	s := &send{t: t, ctx: ctx, req: req, tr: sequencer.OrWallClock(tr)}
	err := s.run()
	return s.out, err
}

// send is one SendMessage in progress.
type send struct {
	t   *target
	ctx context.Context
	req sequencer.Request
	tr  sequencer.Tracer
	out sequencer.Outcome
}

func (s *send) run() error {
	defer s.req.Faults.Race.Leave()
	// Step 1: idempotency check on (key, user_id).
	hit, err := s.lookup(s.req.Faults.StaleIdempotencyRead)
	s.out.Steps.IdempotencyHit = hit
	// A racing twin looks up before either goes on.
	s.req.Faults.Race.Arrive(s.ctx)
	if err != nil || hit {
		return err
	}
	// The server dies before step 2 takes a sequence: nothing written, but
	// the client's connection drops, so it cannot know.
	if s.req.Faults.CrashBeforeAllocate {
		return persistErr(sequencer.CodeCrashBeforeAllocate, false, nil)
	}
	for attempt := 0; attempt < maxSequenceAttempts; attempt++ {
		err := s.persist()
		if !errors.Is(err, errSequenceCollision) {
			return err
		}
		s.out.Steps.Conflicts++ // UNIQUE(conversation_id, sequence) refused the transaction
	}
	return persistErr(CodeSequenceCollision, true, nil)
}

// lookup answers from a live idempotency record. missed simulates a read
// that does not see the record (a replica behind the primary); the
// transaction's conflict on the key then has to catch the retry.
func (s *send) lookup(missed bool) (bool, error) {
	if err := s.t.gate.enter(s.ctx); err != nil {
		return false, failRead(err)
	}
	var r response
	err := s.t.pool.QueryRow(s.ctx,
		"SELECT payload FROM idempotency_keys WHERE key = $1 AND user_id = $2 AND expires_at > now()",
		s.req.Key, s.req.Sender).Scan(&r)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && missed) {
		return false, nil
	}
	if err != nil {
		return false, failRead(err)
	}
	// §3.1: "the cached payload response is returned immediately", whatever
	// the request's content (key_reuse: return-original).
	s.out.Result = sequencer.Result{Seq: r.Sequence, MessageID: r.MessageID, Dedup: true}
	return true, nil
}

// persist is steps 2 to 8 with one sequence.
func (s *send) persist() error {
	var seq uint64
	var allocStart int64
	if s.t.variant != SequenceInTx {
		// Step 2, before BEGIN: an autocommit increment. The sequence is
		// consumed whatever happens to the transaction.
		var err error
		if seq, allocStart, err = s.allocate(s.t.pool); err != nil {
			return err
		}
		s.tr.Allocated(s.req.Chat, seq, allocStart, s.tr.Now())
		if s.req.Faults.CrashAfterAllocate {
			return persistErr(sequencer.CodeCrashAfterAllocate, false, nil)
		}
	}

	// Step 3.
	start := s.tr.Now()
	defer func() { s.out.Timings.Persist += s.tr.Now() - start }()
	if err := s.t.gate.enter(s.ctx); err != nil {
		return failBeforeCommit(err)
	}
	tx, err := s.t.pool.Begin(s.ctx)
	if err != nil {
		return failBeforeCommit(err)
	}
	s.out.Steps.Transactions++
	detached := false // the AckBeforeCommit variant's late COMMIT owns tx
	defer func() {
		if !detached {
			_ = tx.Rollback(context.WithoutCancel(s.ctx)) // a no-op after COMMIT
		}
	}()

	if s.t.variant == SequenceInTx {
		// The alternative: the increment holds the counter row's lock
		// until COMMIT, so sends to one conversation commit in sequence
		// order, and a rollback returns the sequence.
		if seq, allocStart, err = s.allocate(tx); err != nil {
			return inTx(err)
		}
		// An increment rolled back with its transaction handed nothing out.
		defer func() {
			if !s.out.Steps.Committed {
				s.out.Allocated = 0
			}
		}()
		if s.req.Faults.CrashAfterAllocate {
			// The connection dies with the transaction open: the server
			// rolls it back, increment included.
			return persistErr(sequencer.CodeCrashAfterAllocate, false, nil)
		}
	}

	msg, ev := s.message(seq)
	// Steps 4 to 6 in one round trip.
	b := &pgx.Batch{}
	b.Queue(`INSERT INTO messages (id, conversation_id, sender_id, sequence, type, content, client_message_id, sent_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		msg.MessageID, msg.Chat, msg.Sender, int64(seq), msg.ContentType, msg.Content, s.req.Key, msg.CreatedAt)
	if s.t.variant != OutboxOutsideTx {
		b.Queue(`INSERT INTO outbox_events (aggregate_type, aggregate_id, event_type, payload) VALUES ($1, $2, $3, $4)`,
			aggregateType, msg.Chat, eventType, encodeEvent(&ev))
	}
	// A live record for the key means a concurrent send of it committed
	// first (both missed step 1): the update's WHERE leaves it alone and
	// nothing is returned. An expired record is replaced: the key is new.
	b.Queue(`INSERT INTO idempotency_keys (key, user_id, payload, created_at, expires_at)
		VALUES ($1, $2, $3, now(), now() + $4 * interval '1 microsecond')
		ON CONFLICT (key, user_id) DO UPDATE
			SET payload = EXCLUDED.payload, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
			WHERE idempotency_keys.expires_at <= now()
		RETURNING 1`,
		s.req.Key, s.req.Sender, response{ConversationID: msg.Chat, Sequence: seq, MessageID: msg.MessageID},
		s.t.cfg.IdempotencyTTL.Microseconds())
	won, err := runBatch(s.ctx, tx, b)
	if err != nil {
		if uniqueViolation(err) == constraintMessageSequence {
			return errSequenceCollision
		}
		return failBeforeCommit(err)
	}
	if !won {
		// The idempotency record's conflict: a concurrent send of the key
		// committed first.
		s.out.Steps.Conflicts++
		_ = tx.Rollback(s.ctx)
		return s.replayRaced()
	}

	if s.t.variant == AckBeforeCommit {
		detached = true
		s.out.Result = sequencer.Result{Seq: seq, MessageID: msg.MessageID}
		s.out.Steps.Committed = s.commitAfterAck(tx, seq)
		return nil
	}
	if s.req.Faults.CrashInPersist {
		// The server dies around COMMIT; whether it landed first is the
		// plan's coin, and the client cannot tell.
		if s.req.Faults.CrashInPersistCommitted {
			if tx.Commit(s.ctx) == nil {
				s.out.Steps.Committed = true
				s.traceInTx(seq, allocStart)
			}
		}
		return persistErr(sequencer.CodeCrashInPersist, false, nil)
	}
	if err := s.commit(tx, seq); err != nil {
		return err
	}
	s.out.Steps.Committed = true
	s.traceInTx(seq, allocStart)
	s.out.Result = sequencer.Result{Seq: seq, MessageID: msg.MessageID}

	if s.t.variant == OutboxOutsideTx {
		// The dual write: a crash here loses the event for good.
		if s.req.Faults.CrashAfterPersist {
			return persistErr(sequencer.CodeCrashAfterPersist, false, nil)
		}
		if err := s.t.gate.enter(s.ctx); err != nil {
			return persistErr("outbox_write_failed", false, err)
		}
		if _, err := s.t.pool.Exec(s.ctx, `INSERT INTO outbox_events (aggregate_type, aggregate_id, event_type, payload) VALUES ($1, $2, $3, $4)`,
			aggregateType, msg.Chat, eventType, encodeEvent(&ev)); err != nil {
			return persistErr("outbox_write_failed", false, err)
		}
	}
	// Step 8: respond, unless the server dies first.
	if s.req.Faults.CrashAfterPersist {
		return persistErr(sequencer.CodeCrashAfterPersist, false, nil)
	}
	if s.t.relay != nil {
		s.t.relay.poke()
	}
	return nil
}

// querier is what the increment runs on: the pool (autocommit) or the
// transaction.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// allocate increments the conversation's sequence row. A missing row is
// ADR-004's counter_missing; an increment whose answer was lost may have
// consumed a sequence.
func (s *send) allocate(q querier) (seq uint64, start int64, err error) {
	start = s.tr.Now()
	defer func() {
		s.out.Timings.Allocate += s.tr.Now() - start
		s.out.Steps.AllocateFailed = s.out.Steps.AllocateFailed || err != nil
	}()
	if err := s.t.gate.enter(s.ctx); err != nil {
		return 0, start, failAllocate(err)
	}
	var v int64
	err = q.QueryRow(s.ctx,
		"UPDATE conversation_sequences SET last_sequence = last_sequence + 1 WHERE conversation_id = $1 RETURNING last_sequence",
		s.req.Chat).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, start, persistErr(sequencer.CodeCounterMissing, true, err)
	}
	if err != nil {
		return 0, start, failAllocate(err)
	}
	s.out.Allocated = uint64(v)
	s.out.Attempts++
	return uint64(v), start, nil
}

// inTx reclassifies an increment's error inside the transaction: without
// COMMIT nothing it did can last, so the send definitely failed.
func inTx(err error) error {
	var se *sequencer.Error
	if errors.As(err, &se) && !se.Definite {
		return failBeforeCommit(se.Err)
	}
	return err
}

// traceInTx reports the in-transaction increment once it has committed: a
// rolled-back increment allocated nothing.
func (s *send) traceInTx(seq uint64, start int64) {
	if s.t.variant == SequenceInTx {
		s.tr.Allocated(s.req.Chat, seq, start, s.tr.Now()) // the commit made it an allocation
	}
}

// commit is step 7. In a db-down window the connection dies as COMMIT is
// sent: whether the server got it is a coin fixed by the send (so a run is
// reproducible), and either way the client cannot know.
func (s *send) commit(tx pgx.Tx, seq uint64) error {
	if s.t.gate.down() {
		if coin(s.req.Key, seq) {
			if tx.Commit(s.ctx) == nil {
				s.out.Steps.Committed = true
				s.traceInTx(seq, s.tr.Now())
			}
		}
		return persistErr(CodeCommitUnacknowledged, false, errDBDown)
	}
	return commitTx(s.ctx, tx)
}

// commitAfterAck is the AckBeforeCommit variant's step 7, sent after
// step 8 has answered the client; it reports whether COMMIT will be sent.
// A server that dies first (the plan's crash in persist, unless its coin
// says COMMIT landed; a real kill of chatseq serve) never sends it, and
// PostgreSQL rolls the transaction back when the connection drops: an
// acknowledged message is lost.
func (s *send) commitAfterAck(tx pgx.Tx, seq uint64) (committing bool) {
	t, ctx := s.t, context.WithoutCancel(s.ctx) // the request's context ends with the answer
	lost := s.req.Faults.CrashInPersist && !s.req.Faults.CrashInPersistCommitted
	// In a db-down window the COMMIT may or may not reach the server, as
	// in commit; here nobody is told either way.
	lost = lost || (t.gate.down() && !coin(s.req.Key, seq))
	t.background.Add(1)
	go func() {
		defer t.background.Done()
		if lost {
			_ = tx.Rollback(ctx)
			return
		}
		if tx.Commit(ctx) == nil && t.relay != nil {
			t.relay.poke()
		}
	}()
	return !lost
}

// replayRaced answers a send whose key a concurrent send committed first,
// as step 1 would have: the cached response. Its own sequence is a gap.
func (s *send) replayRaced() error {
	hit, err := s.lookup(false)
	if err != nil {
		return err
	}
	if !hit {
		return persistErr(sequencer.CodeStoreError, true, errors.New("idempotency key conflicted but no live record was found"))
	}
	return nil
}

// message builds the row and its MessageSentEvent.
func (s *send) message(seq uint64) (msgRow, sequencer.MessagePersisted) {
	now := time.Now().UTC()
	contentType := s.req.ContentType
	if contentType == "" {
		contentType = "text/plain"
	}
	m := msgRow{
		MessageID: "msg_" + ulid.Make().String(), Chat: s.req.Chat, Sender: s.req.Sender,
		Content: s.req.Content, ContentType: contentType, CreatedAt: now,
	}
	return m, sequencer.MessagePersisted{
		EventID: "evt_" + ulid.Make().String(), EventTime: now, Chat: m.Chat, Seq: seq,
		MessageID: m.MessageID, Sender: m.Sender, Content: m.Content,
		ContentType: contentType, CreatedAt: now,
	}
}

type msgRow struct {
	MessageID, Chat, Sender, Content, ContentType string
	CreatedAt                                     time.Time
}

// runBatch runs the inserts; won is false when the idempotency insert
// returned no row (a live record for the key exists).
func runBatch(ctx context.Context, tx pgx.Tx, b *pgx.Batch) (won bool, err error) {
	br := tx.SendBatch(ctx, b)
	defer br.Close()
	for i := 0; i < b.Len()-1; i++ {
		if _, err := br.Exec(); err != nil {
			return false, err
		}
	}
	var one int
	err = br.QueryRow().Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, br.Close()
	}
	if err != nil {
		return false, err
	}
	return true, br.Close()
}

// coin is a reproducible fair coin per send.
func coin(key string, seq uint64) bool {
	h := fnv.New32a()
	h.Write([]byte(key))
	return (h.Sum32()+uint32(seq))%2 == 0
}
