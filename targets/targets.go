// Package targets names the sequencing designs chatseq drives and opens
// them: ADR-004's core over each store, and the other designs, which
// register themselves here.
package targets

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/internal/closers"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/storeopen"
	"github.com/chatseq/chatseq/target"
	"github.com/chatseq/chatseq/targets/core"
)

// Options reach every target's servers.
type Options struct {
	Store storeopen.Options // ADR-004 targets: Kind is set from the target name
	DSN   string            // PostgreSQL targets; empty: a throwaway local cluster
	// Schema, for PostgreSQL targets, is a schema to use and keep
	// (created when missing), so that a restarted server finds its rows;
	// empty: a fresh schema per run, dropped after it.
	Schema string
	// URL and API reach a service over HTTP (target http): its base URL
	// and a mapping file ("": chatseq's documented API).
	URL, API string
	// Serve starts the service (a shell command) and kills and restarts
	// it on the run's kill_server faults; NemesisCmd is run on them
	// instead, when set.
	Serve, NemesisCmd string
	// Contract is what the service behind target http states of the
	// fields a mapping may state (bench --key-scope, --key-reuse, --gaps,
	// --send-membership, --stream-start): each field given replaces its
	// mapping's (chatseq's API's without one).
	Contract history.Contract
	// HTTP is how target http's requests reach the service.
	HTTP HTTPOptions
}

// HTTPOptions are target http's transport settings (bench's --header,
// --insecure, --ca-cert, --client-cert, --client-key, --http-timeout,
// --max-answer-bytes). Header values are credentials: never show them.
type HTTPOptions struct {
	Header                http.Header
	Insecure              bool
	CACert                string
	ClientCert, ClientKey string
	Timeout               time.Duration // one request, its answer read whole included; 0: the default
	MaxAnswerBytes        int64         // a sync page's answer; 0: the default
}

// Opened is a target ready for the runner (bench.RunTarget).
type Opened struct {
	Factory  target.Factory
	Describe string           // for reports, never with credentials
	Fresh    bool             // started empty, so chat ids need no run prefix
	Contract history.Contract // what the design promises
	// Claims quote the design's document for the invariants its contract
	// makes it promise (history.ClaimsField): a failure cites them.
	Claims map[string]string
	Topic  string // the Kafka topic it publishes to
	// Remote: the design runs in another process, which publishes to its
	// own Kafka (read back only from --brokers) and sees only the faults
	// a run asks for explicitly (through its test hooks).
	Remote bool
	// Volatile: the design's state lives only as long as the process that
	// opened it (an in-memory store, a throwaway cluster, a schema of its
	// own dropped at exit), so a restarted server starts empty. A served
	// one says so when it starts (httpapi.ListeningLine); kill_server
	// faults against it are refused (CheckKills).
	Volatile bool
	cleanups closers.Stack
}

// CheckKills refuses kill_server faults against a service whose state a
// restart wipes: every message acknowledged before a kill would be gone
// after it, and the run would fail as if the service had lost them.
func (o *Opened) CheckKills(timed []target.TimedFault) error {
	if !o.Volatile {
		return nil
	}
	for _, f := range timed {
		if f.Kind == target.KillServer {
			return fmt.Errorf("kill_server (--kill-every, or a schedule's kill_server) against %s: its state lives in the process a kill ends, so the restarted service starts empty and the run would fail as if it lost every message acknowledged before the kill; serve a store that outlives the process (chatseq serve --target postgres --dsn URL --schema NAME, or --target dynamodb), or drop the kills", o.Describe)
		}
	}
	return nil
}

// CheckReceivers refuses receivers against a design that publishes no
// events (its contract says events: none) and serves no push channel of
// its own: bench's in-process channel is fed from the events topic. The
// run was refused only once it had begun, as a failure to carry it out
// (exit 5) rather than the flags' (an outside tester's).
func (o *Opened) CheckReceivers(receivers int) error {
	if receivers == 0 || o.Remote || o.Contract.Events != history.EventsNone {
		return nil
	}
	return fmt.Errorf("--receivers: %s publishes no events, and bench's push channel is fed from the events topic: drop --receivers, or drive a design that publishes (memory, dynamodb, postgres) or a service of its own (--target http)", o.Describe)
}

// NoTopicToRead reports whether a run against the target that reads
// Kafka back from brokers must turn Kafka off: a remote one publishes to
// its own Kafka, so without --brokers there is no topic to read back (an
// embedded cluster would hold nothing of the service's).
func (o *Opened) NoTopicToRead(brokers []string) bool {
	return o.Remote && len(brokers) == 0
}

// OnClose adds cleanup to run when the target is closed, last first.
func (o *Opened) OnClose(f func() error) { o.cleanups.Push(f) }

// Close releases what opening the target started.
func (o *Opened) Close() error { return o.cleanups.Close() }

// Opener opens one kind of target.
type Opener func(ctx context.Context, opts Options) (*Opened, error)

var registry = map[string]Opener{}

// Register adds a target; a duplicate name is a programming error.
func Register(name string, open Opener) {
	if _, dup := registry[name]; dup {
		panic("targets: " + name + " registered twice")
	}
	registry[name] = open
}

// Names lists the registered targets.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Open opens the named target.
func Open(ctx context.Context, name string, opts Options) (*Opened, error) {
	open, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("unknown target %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return open(ctx, opts)
}

// Known reports whether name is a registered target.
func Known(name string) bool { _, ok := registry[name]; return ok }

// adr004Kinds are the targets that run ADR-004's core over a store.
var adr004Kinds = []string{storeopen.Memory, storeopen.DynamoDB, storeopen.DynamoDBLocal}

// HasStrategies reports whether target name runs ADR-004's core, the only
// design whose allocation strategy (two-phase or occ) can be chosen.
func HasStrategies(name string) bool { return RunsCore(name) }

// RunsCore reports whether target name runs ADR-004's core over a store:
// the only design that injects store errors (throttling, a 500, a
// transaction cancelled for another reason), which are DynamoDB's.
func RunsCore(name string) bool { return slices.Contains(adr004Kinds, name) }

// adr004Contract is what ADR-004 promises: gaps ("Gaps Are Acceptable"),
// the original answer to a reused key (ADR-001 Appendix B), clients that
// catch up by cursor ("Gap Safety: clients use sequence > last_acked
// queries", ADR-001 §4), no order of events for consumers (ADR-001 §6:
// clients "tolerate out-of-order transport delivery"), and keys scoped per
// chat (its idempotency table is keyed by chat_id and client_message_id),
// and a send refused to a user not a member of the chat (§3's step 2);
// its reads name no user (ADR-004 checks membership on the send alone).
var adr004Contract = history.Contract{
	Gaps: history.GapsAllowed, KeyReuse: history.KeyReuseReturnOriginal,
	CatchUp: history.CatchUpCursor, EventOrder: history.EventOrderNone,
	KeyScope: history.KeyScopeChat, SendMembership: history.SendMembershipChecked,
	ReadMembership: history.ReadMembershipUnchecked,
}

func init() {
	for _, kind := range adr004Kinds {
		Register(kind, adr004(kind))
		RegisterVariants(kind, adr004Variants())
	}
}

// adr004Claims are ADR-004's (and ADR-001's) words for what catch-up
// promises.
var adr004Claims = map[string]string{
	"catch_up_completeness": `ADR-001 promises that a client syncing with sequence > last_acked_sequence (§4), never waiting for a gap (§6), "catches up; no lost messages" (Appendix B), and ADR-004's "Gap Safety" relies on it`,
}

// adr004 opens ADR-004's core over the store kind.
func adr004(kind string) Opener {
	return func(ctx context.Context, opts Options) (*Opened, error) {
		so := opts.Store
		so.Kind = kind
		st, err := storeopen.Open(ctx, so)
		if err != nil {
			return nil, err
		}
		o := &Opened{
			Factory: core.Factory(st.Store), Describe: "ADR-004 core, " + st.Describe,
			Fresh: st.Fresh, Contract: adr004Contract, Claims: adr004Claims, Topic: sequencer.Topic,
			// A store that starts empty for this process (memory, a DynamoDB
			// Local it started) starts empty again after a restart.
			Volatile: st.Fresh,
		}
		o.OnClose(st.Close)
		return o, nil
	}
}
