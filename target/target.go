// Package target is what a sequencing design must do for the runner to
// drive it, and what the runner tells it: the Target interface, the
// environment a target is built in, the run's timed faults, and how a
// target's answers are recorded. It sits at the bottom of the import graph
// so that the runner (bench), the designs (targets/...) and the HTTP
// server (httpapi) share it without importing one another.
package target

import (
	"context"
	"time"

	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/store"
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

// UserReader is a target whose syncs can read as a user the runner names,
// as a client of a service that checks who reads: each writer reads as
// its own user, and now and then as a user who is a member of no chat,
// whose read must be refused (read_authorization).
type UserReader interface {
	SyncAs(ctx context.Context, user, chat string, after uint64, limit int) ([]store.Message, error)
	// ReadsAsUser says whether the service is told who reads (false: the
	// API names no caller).
	ReadsAsUser() bool
}

// SenderClaimer is a target whose sends tell the caller (the request's
// identity) from the sender the body names: a Request's ClaimedSender is
// sent as the body's, the call made as its Sender.
type SenderClaimer interface {
	ClaimsSenders() bool
}

// ClaimsSenders says whether t sends a Request's ClaimedSender apart
// from its caller.
func ClaimsSenders(t Target) bool {
	c, ok := t.(SenderClaimer)
	return ok && c.ClaimsSenders()
}

// ReadsAsUser is t's UserReader when it can name who reads, else nil.
func ReadsAsUser(t Target) UserReader {
	if r, ok := t.(UserReader); ok && r.ReadsAsUser() {
		return r
	}
	return nil
}

// ServerKiller is a target that can kill and restart its server; it
// returns once the server answers again.
type ServerKiller interface {
	KillServer(ctx context.Context) error
}

// KafkaFaulter is a target whose server publishes to a Kafka of its own
// (a remote service): it carries the run's kafka_outage faults out there,
// failing the server's produces for d from now.
type KafkaFaulter interface {
	KafkaOutage(ctx context.Context, d time.Duration) error
}

// Env is what the runner hands a target it builds: the run's settings a
// design reads, its Kafka publisher and its clock.
type Env struct {
	Variant           sequencer.Variant  // a deliberate departure from the design
	Strategy          sequencer.Strategy // ADR-004's allocation strategy
	RepublishOnReplay bool               // ADR-004 §10's republish on a replay
	// Writers and Readers are the run's clients (a connection pool's size).
	Writers, Readers int
	MaxAttempts      int           // sends per key before a writer gives up
	RetryBackoff     time.Duration // wait before the first retry, doubling
	Seed             int64
	// PublishFail is the run's per-attempt publish failure rate (a relay
	// crashes at it).
	PublishFail float64
	Timed       []TimedFault // faults on the run's clock
	// Publisher produces to the run's topic with Kafka outage windows
	// applied; nil when Kafka is off.
	Publisher sequencer.Publisher
	// Elapsed is the time since the writers started (0 before).
	Elapsed func() time.Duration
}

// Factory builds a target for one run.
type Factory func(ctx context.Context, env Env) (Target, error)
