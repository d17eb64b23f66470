package postgres

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/chatseq/chatseq/sequencer"
)

// Relay tuning. The idle poll is short because a run lasts seconds; the
// backoff cap keeps a Kafka outage of a second from delaying the catch-up
// by much more.
const (
	relayBatch        = 256
	relayIdlePoll     = 5 * time.Millisecond
	relayBackoffMin   = 10 * time.Millisecond
	relayBackoffMax   = 400 * time.Millisecond
	relayRestartDelay = 20 * time.Millisecond
	drainTimeout      = 2 * time.Minute
)

// errRelayCrashed is an injected crash between publish and mark.
var errRelayCrashed = errors.New("relay crashed between publish and mark (injected)")

// relay is §4's background worker: poll unprocessed outbox rows oldest
// first, publish each and wait for the acknowledgement (acks=all), then
// mark them processed. A failed publish backs off exponentially and
// resumes from the oldest unprocessed row.
type relay struct {
	t     *target
	pub   sequencer.Publisher
	crash float64    // per pass: crash between publish and mark
	rng   *rand.Rand // the relay goroutine's alone
	// crashDue is a crash that has not happened yet: drawn for a pass
	// that failed before reaching it (Kafka or the database down), or the
	// first crash of a run with crashes on, due from the start. It stays
	// due, so the rate counts crashes, not draws.
	crashDue bool

	wake chan struct{}
	quit chan struct{}
	done chan struct{}

	passes atomic.Int64 // completed polls, to tell drain a pass ended
}

func startRelay(t *target, pub sequencer.Publisher, crash float64, seed int64) *relay {
	r := &relay{
		t: t, pub: pub, crash: crash,
		// A positive rate crashes the first pass that publishes, then at
		// the rate: however few passes a run makes (a short or slow one,
		// at the default 1%), it meets the crash at least once, between
		// publish and mark as designed, between mark and publish under
		// mark-before-publish, where it loses the rest of the batch.
		crashDue: crash > 0,
		rng:      rand.New(rand.NewPCG(uint64(seed), 0x6f7574626f78)), // "outbox"
		wake:     make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{}),
	}
	go r.loop()
	return r
}

// poke tells an idle relay there is work.
func (r *relay) poke() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// stop ends the relay and waits for it.
func (r *relay) stop() {
	close(r.quit)
	<-r.done
}

func (r *relay) loop() {
	defer close(r.done)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-r.quit
		cancel()
	}()
	backoff := time.Duration(0)
	for {
		n, err := r.pass(ctx)
		r.passes.Add(1)
		if ctx.Err() != nil {
			return
		}
		wait, wakeable := relayIdlePoll, true
		switch {
		case errors.Is(err, errRelayCrashed):
			// A new worker starts and "picks up from the oldest row where
			// processed_at IS NULL" (§6): the published, unmarked batch
			// goes out again.
			wait, wakeable, backoff = relayRestartDelay, false, 0
		case err != nil:
			backoff = min(max(2*backoff, relayBackoffMin), relayBackoffMax)
			wait, wakeable = backoff, false
		case n == relayBatch:
			backoff = 0
			continue
		default:
			backoff = 0
		}
		if !r.sleep(wait, wakeable) {
			return
		}
	}
}

// sleep waits d, or less if woken and wakeable; false when stopping.
func (r *relay) sleep(d time.Duration, wakeable bool) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	wake := r.wake
	if !wakeable {
		wake = nil
	}
	select {
	case <-r.quit:
		return false
	case <-wake:
	case <-t.C:
	}
	return true
}

// outboxRow is one unprocessed event.
type outboxRow struct {
	id      int64
	payload []byte
}

// pass publishes one batch of the oldest unprocessed events.
func (r *relay) pass(ctx context.Context) (int, error) {
	if err := r.t.gate.enter(ctx); err != nil {
		return 0, err
	}
	batch, err := r.poll(ctx)
	if err != nil || len(batch) == 0 {
		return 0, err
	}
	crashAfter := -1
	if !r.crashDue && r.crash > 0 && r.rng.Float64() < r.crash {
		r.crashDue = true
	}
	if r.crashDue {
		crashAfter = r.rng.IntN(len(batch))
	}
	if r.t.variant == MarkBeforePublish {
		return len(batch), r.markThenPublish(ctx, batch, crashAfter)
	}
	var sent []int64
	for i, row := range batch {
		if err := r.publish(ctx, row); err != nil {
			// Mark what the broker acknowledged, so the retry starts
			// where this pass stopped.
			return len(batch), errors.Join(err, r.mark(ctx, sent))
		}
		sent = append(sent, row.id)
		if i == crashAfter {
			return len(batch), r.crashed()
		}
	}
	return len(batch), r.mark(ctx, sent)
}

// crashed records that the due crash happened.
func (r *relay) crashed() error {
	r.crashDue = false
	return errRelayCrashed
}

// markThenPublish is the broken order: a crash or failed publish after the
// mark loses the rest of the batch.
func (r *relay) markThenPublish(ctx context.Context, batch []outboxRow, crashAfter int) error {
	ids := make([]int64, len(batch))
	for i, row := range batch {
		ids[i] = row.id
	}
	if err := r.mark(ctx, ids); err != nil {
		return err
	}
	for i, row := range batch {
		if i == crashAfter {
			return r.crashed()
		}
		if err := r.publish(ctx, row); err != nil {
			return err
		}
	}
	return nil
}

// Poll queries. The design's "oldest row" is by created_at, the column its
// partial index covers; created_at defaults to now(), the transaction's
// START, so it orders by when sends began, not when they committed. The
// sequence-in-tx alternative orders by id: the bigserial is drawn after the
// counter row's lock, so within a conversation id order is sequence order.
const (
	pollByCreatedAt = `SELECT id, payload FROM outbox_events WHERE processed_at IS NULL ORDER BY created_at, id LIMIT $1`
	pollByID        = `SELECT id, payload FROM outbox_events WHERE processed_at IS NULL ORDER BY id LIMIT $1`
)

func (r *relay) poll(ctx context.Context) ([]outboxRow, error) {
	query := pollByCreatedAt
	if r.t.variant == SequenceInTx {
		query = pollByID
	}
	rows, err := r.t.pool.Query(ctx, query, relayBatch)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var batch []outboxRow
	for rows.Next() {
		var row outboxRow
		if err := rows.Scan(&row.id, &row.payload); err != nil {
			return nil, err
		}
		batch = append(batch, row)
	}
	return batch, rows.Err()
}

func (r *relay) publish(ctx context.Context, row outboxRow) error {
	ev, err := decodeEvent(row.payload)
	if err != nil {
		return fmt.Errorf("outbox row %d: %w", row.id, err)
	}
	return r.pub.Publish(ctx, ev)
}

// mark sets processed_at on the published rows (§4: once ACK'd).
func (r *relay) mark(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	if err := r.t.gate.enter(ctx); err != nil {
		return err
	}
	_, err := r.t.pool.Exec(ctx, "UPDATE outbox_events SET processed_at = now() WHERE id = ANY($1)", ids)
	return err
}

// drain waits until no unprocessed row is left and a whole pass has ended
// since (a pass that read rows before may still be publishing them).
func (r *relay) drain(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, drainTimeout)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		before := r.passes.Load()
		var left int64
		err := r.t.pool.QueryRow(ctx, "SELECT count(*) FROM outbox_events WHERE processed_at IS NULL").Scan(&left)
		if err == nil && left == 0 {
			for r.passes.Load() < before+2 {
				r.poke()
				select {
				case <-ctx.Done():
					return fmt.Errorf("outbox drained but the relay did not finish its pass: %w", ctx.Err())
				case <-tick.C:
				}
			}
			return nil
		}
		r.poke()
		select {
		case <-ctx.Done():
			return fmt.Errorf("outbox not drained (%d events unpublished, last error %v): %w", left, err, ctx.Err())
		case <-tick.C:
		}
	}
}
