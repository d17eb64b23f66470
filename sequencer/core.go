// Package sequencer is the ADR-004 sequencing core: the persist path
// (idempotency look-up, membership check, atomic allocation, transactional
// persist, publish then ACK), chat creation and sync, over a store.Store and
// a Publisher. Deliberately broken variants exist so the checker can be shown
// to catch each one.
package sequencer

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/chatseq/chatseq/store"
)

// Publisher sends a MessagePersisted event and returns once the broker has
// acknowledged it (acks=all).
type Publisher interface {
	Publish(ctx context.Context, ev MessagePersisted) error
}

// Tracer observes allocations as they happen, on the recorder's clock, so
// trace events land in the history in time order. Allocated is called once
// the allocation is known to have happened, with when its call started and
// when it returned (both read from Now).
type Tracer interface {
	Now() int64
	Allocated(chat string, seq uint64, start, end int64)
}

// Config selects how the core behaves.
type Config struct {
	Store     store.Store
	Publisher Publisher // nil: step 5 is skipped (Kafka off)
	Variant   Variant
	// VariantNow, if set, is the variant in effect for the operation
	// starting now (a schedule's variant_on window), Variant outside any
	// window; Switched lists every variant it may return, each
	// Switchable.
	VariantNow func() Variant
	Switched   []Variant
	Strategy   Strategy // TwoPhase when empty
	// RepublishOnReplay publishes the cached message again when a retry is
	// answered from the idempotency record. ADR-004 §10 promises that a
	// retry after a failed publish makes the event reach Kafka; its §7
	// pseudocode returns from step 1 without publishing, which loses the
	// event for good. false reproduces the pseudocode.
	RepublishOnReplay bool
	// IdempotencyTTL is the idempotency record's lifetime (ADR-001: 7 days).
	IdempotencyTTL time.Duration
	// Now is the wall clock for created_at and ttl; time.Now if nil.
	Now func() time.Time
}

// Core runs the sequencing operations. It is safe for concurrent use.
type Core struct {
	cfg        Config
	ids        *idSource
	background sync.WaitGroup // writes a broken variant performs after its ACK
	marks      *watermarks    // SyncWatermark: the sequences in flight per chat
}

// New checks the configuration and returns a core.
func New(cfg Config) (*Core, error) {
	if cfg.Store == nil {
		return nil, fmt.Errorf("sequencer: no store")
	}
	if !cfg.Variant.valid() {
		return nil, fmt.Errorf("sequencer: unknown variant %q (known: %s)", cfg.Variant, VariantNames())
	}
	strategy, ok := ParseStrategy(string(cfg.Strategy))
	if !ok {
		return nil, fmt.Errorf("sequencer: unknown strategy %q (known: two-phase, occ)", cfg.Strategy)
	}
	cfg.Strategy = strategy
	if err := cfg.Variant.CheckStrategy(strategy); err != nil {
		return nil, fmt.Errorf("sequencer: %w", err)
	}
	for _, v := range cfg.Switched {
		if err := v.CheckSwitchable(); err != nil {
			return nil, fmt.Errorf("sequencer: %w", err)
		}
		if err := v.CheckStrategy(strategy); err != nil {
			return nil, fmt.Errorf("sequencer: %w", err)
		}
	}
	if cfg.IdempotencyTTL == 0 {
		cfg.IdempotencyTTL = 7 * 24 * time.Hour
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	c := &Core{cfg: cfg, ids: newIDSource()}
	if cfg.Variant == SyncWatermark {
		c.marks = newWatermarks()
	}
	return c, nil
}

// variant is the variant in effect for an operation starting now.
func (c *Core) variant() Variant {
	if c.cfg.VariantNow != nil {
		return c.cfg.VariantNow()
	}
	return c.cfg.Variant
}

// Wait blocks until writes that a broken variant deferred past its ACK are
// done, so the final state read afterwards includes them.
func (c *Core) Wait() { c.background.Wait() }

// CreateChat creates a chat whose counter starts at 0 (ADR-004 §9).
func (c *Core) CreateChat(ctx context.Context, chat string, members []string) error {
	return c.cfg.Store.CreateChat(ctx, chat, members)
}

// Sync returns the chat's messages with sequence > after, ascending, at most
// limit of them (ADR-001 §4); under SyncWatermark only those below the
// chat's watermark, read before the query.
func (c *Core) Sync(ctx context.Context, chat string, after uint64, limit int) ([]store.Message, error) {
	var mark *chatMark
	var w uint64
	if c.marks != nil {
		m, err := c.marks.chat(ctx, c.cfg.Store, chat)
		if err != nil {
			return nil, classifyStoreError(err)
		}
		mark, w = m, m.watermark()
		if w <= after+1 {
			return []store.Message{}, nil // nothing above after has ended yet
		}
	}
	msgs, err := c.cfg.Store.QueryMessages(ctx, store.Query{Chat: chat, After: after, Limit: limit})
	if err != nil {
		return nil, readFailed(err)
	}
	if mark != nil {
		msgs = belowMark(msgs, w)
	}
	return msgs, nil
}
