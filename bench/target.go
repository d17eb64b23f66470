package bench

import (
	"context"
	"slices"
	"time"

	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/store"
	"github.com/chatseq/chatseq/store/memstore"
)

// Target is a sequencing design the runner drives: the ADR-004 core over a
// store, or another design (an outbox, a Raft log) with the same client
// operations.
type Target interface {
	CreateChat(ctx context.Context, chat string, members []string) error
	// SetCounter puts a chat's counter at v (scenarios that start at 10).
	SetCounter(ctx context.Context, chat string, v uint64) error
	// DeleteCounter removes a chat's counter (ADR-004's SEV-2 incident).
	DeleteCounter(ctx context.Context, chat string) error
	Persist(ctx context.Context, req sequencer.Request, tr sequencer.Tracer) (sequencer.Outcome, error)
	Sync(ctx context.Context, chat string, after uint64, limit int) ([]store.Message, error)
	// Settle waits for work done after answering clients (a broken
	// variant's deferred write, a relay draining an outbox), so the final
	// state and the topic read afterwards are complete.
	Settle(ctx context.Context) error
	Dump(ctx context.Context, chats []string) (store.State, error)
	Close() error
}

// BadAnswerExampler is a target that keeps the first answer its service
// gave in breach of its API (history.ErrorBadResponse): the request and
// the answer's first bytes, never a credential. The report shows it
// beside api_conformance's failure, which the history alone can only
// point at by line.
type BadAnswerExampler interface {
	BadAnswerExample() string
}

// TargetEnv is what the runner hands a target it builds.
type TargetEnv struct {
	Config Config
	// Publisher produces to Config.Topic with Kafka outage windows applied;
	// nil when Kafka is off.
	Publisher sequencer.Publisher
	// Elapsed is the time since the writers started (0 before).
	Elapsed func() time.Duration
}

// TargetFactory builds a target for one run.
type TargetFactory func(ctx context.Context, env TargetEnv) (Target, error)

// StoreWindows wraps st so calls inside the run's store latency and stall
// windows are delayed, and calls inside its store error windows fail.
func (env TargetEnv) StoreWindows(st store.Store) store.Store {
	var windows []TimedFault
	for _, f := range env.Config.Timed {
		if slices.Contains(storeWindowKinds, f.Kind) {
			windows = append(windows, f)
		}
	}
	if len(windows) == 0 {
		return st
	}
	return &slowStore{Store: st, elapsed: env.Elapsed, windows: windows}
}

// CoreTarget is ADR-004's sequencing core over st (nil: a fresh embedded
// store).
func CoreTarget(st store.Store) TargetFactory {
	return func(ctx context.Context, env TargetEnv) (Target, error) {
		if st == nil {
			st = memstore.New()
		}
		core, err := sequencer.New(sequencer.Config{
			Store: env.StoreWindows(st), Variant: env.Config.Variant, Strategy: env.Config.Strategy,
			RepublishOnReplay: env.Config.RepublishOnReplay, Publisher: env.Publisher,
		})
		if err != nil {
			return nil, err
		}
		return &coreTarget{Core: core, st: st}, nil
	}
}

// coreTarget adapts sequencer.Core; chat set-up and faults go to the store
// directly, outside any latency window.
type coreTarget struct {
	*sequencer.Core
	st store.Store
}

func (t *coreTarget) CreateChat(ctx context.Context, chat string, members []string) error {
	return t.st.CreateChat(ctx, chat, members)
}

// IsMember is step 2's membership read, for a server that lets only
// members read a chat.
func (t *coreTarget) IsMember(ctx context.Context, chat, user string) (bool, error) {
	return t.st.IsMember(ctx, chat, user)
}

func (t *coreTarget) SetCounter(ctx context.Context, chat string, v uint64) error {
	return t.st.PutCounter(ctx, store.Counter{Chat: chat, Value: v}, store.Unconditional)
}

func (t *coreTarget) DeleteCounter(ctx context.Context, chat string) error {
	return t.st.DeleteCounter(ctx, chat)
}

func (t *coreTarget) Settle(context.Context) error { t.Wait(); return nil }

func (t *coreTarget) Dump(ctx context.Context, chats []string) (store.State, error) {
	return t.st.Dump(ctx, chats)
}

// Walk streams the final state (see store.Walker).
func (t *coreTarget) Walk(ctx context.Context, chats []string, v store.StateVisitor) error {
	return store.Walk(ctx, t.st, chats, v)
}

// Close leaves the store to its owner.
func (t *coreTarget) Close() error { return nil }
