// Package bench drives the sequencing core with concurrent writers, injected
// crashes and duplicate retries, records the history, and measures latency
// per step with HdrHistogram (open loop measured from each operation's
// intended start, so a stall is not hidden by coordinated omission).
package bench

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/metrics"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/target"
)

// Distribution of writes over chats.
const (
	Uniform = "uniform"
	Zipf    = "zipf"
)

// FaultRates are per-attempt probabilities in [0,1].
type FaultRates struct {
	StaleRead          float64
	CrashAfterAllocate float64
	CrashInPersist     float64
	CrashAfterPersist  float64
	PublishFail        float64
	// CrashBeforeAllocate: the server dies after steps 1 and 2, before
	// step 3 (ADR-004 §10's first row).
	CrashBeforeAllocate float64
	// Store errors (ADR-004's core only): one store call of the attempt
	// is throttled, fails with a 500, or (step 4) its transaction is
	// cancelled for a reason other than the idempotency condition.
	StoreThrottle      float64
	StoreInternalError float64
	TxnCanceledOther   float64
	// SlowCommit (ADR-004's core, two-phase only): the attempt's commit
	// waits SlowCommitDelay (0: DefaultSlowCommitDelay) after its
	// allocation, so later sequences of its chat commit, are read and
	// are pushed first: a late commit below what clients already have.
	SlowCommit      float64
	SlowCommitDelay time.Duration
}

// DefaultSlowCommitDelay is how long a slow commit waits: longer than a
// receiver's gap wait (50 ms), so a device settles the gap by a sync that
// passes the sequence before it commits.
const DefaultSlowCommitDelay = 200 * time.Millisecond

// slowCommitDelay is the wait of a slow commit.
func (f FaultRates) slowCommitDelay() time.Duration {
	if f.SlowCommitDelay > 0 {
		return f.SlowCommitDelay
	}
	return DefaultSlowCommitDelay
}

// StoreErrors reports whether any store error fault is on, which only
// ADR-004's core injects.
func (f FaultRates) StoreErrors() bool {
	return f.StoreThrottle > 0 || f.StoreInternalError > 0 || f.TxnCanceledOther > 0
}

// Config is one bench run.
type Config struct {
	Writers      int
	Chats        int
	Distribution string  // Uniform or Zipf
	ZipfS        float64 // zipf exponent, > 1
	Duration     time.Duration
	Ops          int     // total operations across writers; 0 = until Duration
	Rate         float64 // operations/s across writers; 0 = closed loop
	// Stages ramp an open loop's rate instead (k6's ramping arrival
	// rate, stages.go); Duration is then their sum.
	Stages []Stage
	Seed   int64

	Faults           FaultRates
	Timed            []target.TimedFault // faults on the run's clock
	InitialCounter   uint64              // every chat's counter after creation
	DuplicateAfterOK float64             // probability a writer resends an acknowledged key
	// DuplicateLate is the probability a writer resends an acknowledged
	// key again DuplicateLateAfter later (a client retrying long after,
	// as an app restored from a crash does): a service that forgets its
	// idempotency records sooner answers it as a new message.
	DuplicateLate       float64
	DuplicateLateAfter  time.Duration
	ConcurrentDuplicate float64 // probability a send is raced by a twin with the same key
	ReuseKey            float64 // probability a send reuses this client's previous key with other content (a client bug ADR-001 Appendix B names)
	// KeyAcrossChats is the probability a send to a chat uses the key
	// this client last sent to another chat: a new message, keys being
	// unique within a chat (ADR-004 keys its table by chat and key;
	// ADR-001 per client per chat). A service keying idempotency by the
	// key alone answers it with the other chat's message.
	KeyAcrossChats float64
	// KeyAcrossSenders is the probability a send is another member of
	// the chat (the next writer's user) sending the key and content this
	// client last sent there: under key_scope chat (ADR-004) a replay of
	// that message, under client and sender (ADR-001, the Message
	// Service) a new message, the other member's. Without it no key was
	// ever sent by two senders, and a service keying by sender passed
	// under chat, one keying by chat under client.
	KeyAcrossSenders float64
	// OddKeys is the probability a send's key is an unusual one, each a
	// new message: the client's last key in the other case (keys are
	// case-sensitive), or one of 118 characters (every such key of a run
	// shares its first hundred). A service that folds keys' case, or cuts
	// them short (a case-insensitive VARCHAR(16)), answers it with
	// another message: keys were short and lower-case, and it passed.
	OddKeys float64
	// OutsiderSends is the probability a send comes from a user who is
	// not a member of the chat (OutsiderID), which ADR-004 §3 refuses
	// (not_a_member): a service that skips its membership check stores
	// it. Each chat's members are recorded as join lines for
	// send_authorization to judge by.
	OutsiderSends float64
	// OutsiderSyncs is the probability a writer's sync reads as a user
	// who is not a member of the chat (OutsiderID), which a service
	// checking who reads refuses (not_a_member): one that serves anyone
	// showed a chat to strangers and passed. Only on a target that reads
	// as a user (target.UserReader: http with a user header), judged by
	// read_authorization from the syncs' users and the join lines.
	OutsiderSyncs float64
	// ForgedSenders is the probability a send's body names another user
	// than its caller. On even operations it is made as a user who is
	// not a member of the chat (OutsiderID) while its body's sender_id
	// names the writer's own user, a member: the API refuses it (403
	// auth.sender_mismatch, or chat.not_a_member), and a service that
	// takes the sender from the body stores it as the member's, which
	// send_authorization fails (the persist's sender is its caller). On
	// odd ones it is made as the writer's user naming another member:
	// stored as the other's, ack_implies_persistence fails it, and a
	// read showing it (sync_completeness, identical_order). Only
	// on a target that tells the caller from the body's sender
	// (target.SenderClaimer: http with a user header), none under
	// send_membership: unchecked.
	ForgedSenders float64
	SyncRatio     float64       // share of operations that are syncs
	SyncLimit     int           // page size of a sync
	Readers       int           // catch-up clients following every chat by cursor (reader.go)
	ReaderPoll    time.Duration // a reader's pause between rounds over its chats; 0 = DefaultReaderPoll
	// Receivers are each chat's receiving members, one device each,
	// on the target's push channel (receivers.go); 0: none.
	Receivers int
	// OutsiderDevices are devices connected to the push channel, with
	// the receivers, as users who are members of no chat
	// (OutsiderDeviceUser), held open through the run: a push channel
	// that streams a chat to anyone pushes to them, and
	// push_authorization fails it. Without them the only devices were
	// members, and a service streaming every chat to any socket passed.
	OutsiderDevices int
	// AnonymousDevices are handshakes to the push channel naming no user
	// (no X-User-Id), with the receivers, which the API refuses (401
	// auth.required): recorded as a refused connect, or, answered 101,
	// held open through the run as AnonymousDeviceUser, a member of no
	// chat, so anything pushed on it fails push_authorization. Only on a
	// push channel that names its users (gateway.Anonymous: the http
	// target's).
	AnonymousDevices int
	// outsiderStateReads: each outsider device reads one chat's
	// delivery_state as its user as it settles (a state_read line,
	// judged by read_authorization), where the push channel reads as a
	// named user (gateway.StateReaderAs) and the target names who reads
	// (target.UserReader), unless read_membership: unchecked. RunTarget
	// sets it.
	outsiderStateReads bool
	// DropConnectionsEvery drops every device's connection on this clock
	// (a nemesis); 0: never.
	DropConnectionsEvery time.Duration
	// DropConnectionsFor is how long a dropped device stays offline
	// before it reconnects (a lost network is not back at once);
	// 0: it redials at once.
	DropConnectionsFor time.Duration
	MaxAttempts        int           // sends per key before a writer gives up
	RetryBackoff       time.Duration // wait before the first retry, doubling up to maxRetryBackoff

	Variant           sequencer.Variant
	Strategy          sequencer.Strategy
	RepublishOnReplay bool
	// ChatPrefix starts every chat id; a run on shared tables uses a
	// prefix of its own so its chats are new.
	ChatPrefix string

	// Kafka: Brokers set means a real cluster; otherwise KafkaOff or the
	// in-process kfake cluster.
	KafkaOff bool
	// ServerKafka: the target's server publishes to a Kafka of its own,
	// which a kafka_outage faults through the target
	// (target.KafkaFaulter), Kafka off for the run or not.
	ServerKafka bool
	Brokers     []string
	Topic       string
	Partitions  int32

	// ShardIndex of ShardCount: this process drives only the chats whose
	// index modulo ShardCount is ShardIndex, so shards run on several
	// machines never share a chat and their histories check as one run.
	ShardIndex, ShardCount int

	// Contract is what the target promises, written to the history header;
	// an empty Events is filled from whether Kafka is on.
	Contract history.Contract
	// Claims quote the target's document for what the contract promises
	// (the header's history.ClaimsField), so that a failure cites them.
	Claims map[string]string

	HistoryPath string // where the history streams; required
	// HistoryTap, if set, gets every line written to the history file as
	// it is written (checker.Feed: the check reads the run as it goes).
	// It is paced once the writers stop.
	HistoryTap *history.Tap `json:"-"`
	Target     string       // recorded in the header
	Scenario   string       // recorded in the header

	// Progress, if set, is called every ProgressEvery while the writers
	// run and once with Done set after they stop (timeseries.go).
	Progress func(Progress) `json:"-"`
	// Phase, if set, is called as each step after the writers begins, with
	// what it does (PhaseFinalState, PhaseEvents).
	Phase func(string) `json:"-"`
	// WritersStopped, if set, is called once the writers have stopped,
	// before the run settles and records its final state: bench's Ctrl-C
	// then quits at once instead of stopping writers that are done.
	WritersStopped func() `json:"-"`
	// WritersStarting, if set, is called once the target is open and the
	// writers are about to start: before it, an interrupt stops a target
	// that is still starting, not writers.
	WritersStarting func() `json:"-"`
	// Stop, if set, stops the writers early once it is closed, as their
	// duration would (--fail-fast: the online check found a violation);
	// the run then settles, records its final state and is checked.
	Stop <-chan struct{} `json:"-"`
	// MemoryCeiling, if positive, is the memory this process can have: the
	// writers stop early once it holds MemoryStopShare of it (the embedded
	// store keeps every message), so the run ends with a report instead
	// of the kernel killing it.
	MemoryCeiling int64 `json:"-"`
	// Metrics, if set, exports the run's figures while it goes
	// (--metrics-addr); nil exports nothing.
	Metrics *metrics.Exporter `json:"-"`
}

// DefaultConfig is what `chatseq bench` runs with no flags.
func DefaultConfig() Config {
	return Config{
		Writers: 8, Chats: 64, Distribution: Uniform, ZipfS: 1.1,
		Duration: 3 * time.Second, Seed: 1, DuplicateLateAfter: time.Second,
		Faults: FaultRates{
			StaleRead: 0.01, CrashAfterAllocate: 0.01, CrashInPersist: 0.01,
			CrashAfterPersist: 0.01, PublishFail: 0.01,
		},
		DuplicateAfterOK: 0.02, ConcurrentDuplicate: 0.02, ReuseKey: 0.01, KeyAcrossChats: 0.02, KeyAcrossSenders: 0.02, OddKeys: 0.01, OutsiderSends: 0.01, OutsiderSyncs: 0.01, ForgedSenders: 0.01, OutsiderDevices: 1, AnonymousDevices: 1,
		SyncRatio: 0.1, SyncLimit: 100, MaxAttempts: 20, RetryBackoff: 100 * time.Microsecond,
		RepublishOnReplay: true, Strategy: sequencer.TwoPhase, ChatPrefix: DefaultChatPrefix,
		Topic: sequencer.Topic, Partitions: 8,
		HistoryPath: "chatseq-history.jsonl",
		Target:      "memory",
		Contract: history.Contract{
			Gaps: history.GapsAllowed, KeyReuse: history.KeyReuseReturnOriginal,
			CatchUp: history.CatchUpCursor, EventOrder: history.EventOrderNone,
		},
	}
}

// Bounds that keep a typo (--writers 1000000) from taking a machine down
// rather than being refused: each writer, reader and device is a
// goroutine with its buffers, each chat a store partition and the
// check's tables, each device a connection. A scenario file is held to
// the same.
const (
	MaxWriters = 10_000
	MaxReaders = MaxWriters
	MaxChats   = 1_000_000
	// MaxReceivers are a chat's receiving members; MaxDevices all of
	// them, every one a connection.
	MaxReceivers = 1_000
	// MaxOutsiderDevices bounds --outsider-devices and --anonymous-devices.
	MaxOutsiderDevices = 100
	MaxDevices         = 100_000
)

// Validate names the first bad setting.
func (c Config) Validate() error {
	switch {
	case c.Writers < 1 || c.Writers > MaxWriters:
		return fmt.Errorf("--writers must be from 1 to %d, got %d", MaxWriters, c.Writers)
	case c.Chats < 1 || c.Chats > MaxChats:
		return fmt.Errorf("--chats must be from 1 to %d, got %d", MaxChats, c.Chats)
	case c.Distribution != Uniform && c.Distribution != Zipf:
		return fmt.Errorf("--distribution must be %q or %q, got %q", Uniform, Zipf, c.Distribution)
	case c.Distribution == Zipf && !(c.ZipfS > 1 && !math.IsInf(c.ZipfS, 1)):
		// NaN and +Inf too: math/rand's Zipf of either never returns.
		return fmt.Errorf("--zipf-s must be a finite number greater than 1, got %g", c.ZipfS)
	case c.Duration <= 0 && c.Ops <= 0:
		return fmt.Errorf("give a positive --duration or --ops")
	case c.Ops < 0:
		return fmt.Errorf("--ops must not be negative, got %d", c.Ops)
	case c.Readers < 0 || c.Readers > MaxReaders:
		return fmt.Errorf("--readers must be from 0 to %d, got %d", MaxReaders, c.Readers)
	case c.ReaderPoll < 0:
		return fmt.Errorf("--reader-poll must not be negative, got %s", c.ReaderPoll)
	case c.Receivers < 0 || c.Receivers > MaxReceivers:
		return fmt.Errorf("--receivers must be from 0 to %d, got %d", MaxReceivers, c.Receivers)
	case int64(c.Receivers)*int64(c.Chats) > MaxDevices:
		return fmt.Errorf("--receivers %d a chat over %d chats is %d devices, more than %d", c.Receivers, c.Chats, int64(c.Receivers)*int64(c.Chats), MaxDevices)
	case c.DropConnectionsEvery < 0:
		return fmt.Errorf("--drop-connections-every must not be negative, got %s", c.DropConnectionsEvery)
	case c.OutsiderDevices < 0 || c.OutsiderDevices > MaxOutsiderDevices:
		return fmt.Errorf("--outsider-devices must be from 0 to %d, got %d", MaxOutsiderDevices, c.OutsiderDevices)
	case c.AnonymousDevices < 0 || c.AnonymousDevices > MaxOutsiderDevices:
		return fmt.Errorf("--anonymous-devices must be from 0 to %d, got %d", MaxOutsiderDevices, c.AnonymousDevices)
	case c.DropConnectionsEvery > 0 && c.Receivers == 0:
		return fmt.Errorf("--drop-connections-every drops the receivers' connections: give --receivers too")
	case c.Faults.SlowCommit > 0 && c.Strategy == sequencer.Optimistic:
		return fmt.Errorf("--slow-commit delays two-phase allocation's commit after its allocation; strategy %s allocates in the commit: use strategy %s", c.Strategy, sequencer.TwoPhase)
	case c.Faults.SlowCommitDelay < 0:
		return fmt.Errorf("--slow-commit-delay must not be negative, got %s", c.Faults.SlowCommitDelay)
	case c.DropConnectionsFor < 0:
		return fmt.Errorf("--drop-connections-for must not be negative, got %s", c.DropConnectionsFor)
	}
	if problem := DropsProblem(c.DropConnectionsFor, c.DropConnectionsEvery, "--drop-connections-every"); problem != "" {
		return fmt.Errorf("--drop-connections-for %s", problem)
	}
	if problem := DropsNeverStrike(c.DropConnectionsFor, c.DropConnectionsEvery, c.Duration); problem != "" {
		return fmt.Errorf("--drop-connections-every %s", problem)
	}
	switch {
	case c.GatewayVariant() != "" && c.Receivers == 0:
		return fmt.Errorf("--broken %s breaks the push gateway, which only receivers reach: give --receivers too (4 shows it)", c.Variant)
	case c.SyncLimit < 1:
		return fmt.Errorf("--sync-limit must be at least 1, got %d", c.SyncLimit)
	case c.RetryBackoff < 0:
		return fmt.Errorf("--retry-backoff must not be negative, got %s", c.RetryBackoff)
	case c.MaxAttempts < 1:
		return fmt.Errorf("--max-attempts must be at least 1, got %d", c.MaxAttempts)
	case c.ShardCount < 0 || c.ShardIndex < 0 || (c.ShardCount > 0 && c.ShardIndex >= c.ShardCount):
		return fmt.Errorf("--shard must be i/N with 0 ≤ i < N, got %d/%d", c.ShardIndex, c.ShardCount)
	case c.ShardCount > c.Chats:
		return fmt.Errorf("--shard %d/%d: more shards than the %d chats", c.ShardIndex, c.ShardCount, c.Chats)
	case c.ChatPrefix == "":
		return fmt.Errorf("the chat id prefix must not be empty")
	case c.HistoryPath == "":
		return fmt.Errorf("--history must name a file")
	case c.Partitions < 1:
		return fmt.Errorf("--partitions must be at least 1, got %d", c.Partitions)
	case !c.KafkaOff && strings.TrimSpace(c.Topic) == "":
		return fmt.Errorf("--topic must name a Kafka topic")
	}
	if len(c.Stages) > 0 {
		if problem := StagesProblem(c.Stages, c.Writers); problem != "" {
			return fmt.Errorf("--stages %s: %s", StagesString(c.Stages), problem)
		}
		switch ramp := NewRamp(c.Stages); {
		case c.Rate > 0:
			return fmt.Errorf("give --rate or --stages, not both: --stages %s ramps the rate", StagesString(c.Stages))
		case c.Duration != ramp.Duration():
			return fmt.Errorf("--stages %s last %s, but the run's duration is %s: leave the duration out, the stages set it", StagesString(c.Stages), ramp.Duration(), c.Duration)
		}
	}
	if problem := RateProblem(c.Rate, c.Writers, c.Duration, c.Ops); problem != "" {
		return fmt.Errorf("--rate %g %s", c.Rate, problem)
	}
	if err := c.Variant.CheckStrategy(c.Strategy); err != nil {
		return fmt.Errorf("--broken %s with --strategy %s: %w", c.Variant, c.Strategy, err)
	}
	for i, f := range c.Timed {
		if err := f.Validate(c.Chats); err != nil {
			return err
		}
		if problem := target.VariantOverlap(c.Timed, i); problem != "" {
			return fmt.Errorf("--schedule: %s", problem)
		}
		if problem := f.OutlastsRun(c.Duration); problem != "" {
			return fmt.Errorf("--schedule: %s", problem)
		}
		if problem := f.VariantProblem(c.Strategy, c.Variant); problem != "" {
			return fmt.Errorf("--schedule: %s", problem)
		}
		if f.Kind == target.DeleteCounter && f.Chat%c.shards() != c.ShardIndex {
			return fmt.Errorf("%s names chat %d, which shard %d/%d does not drive", f.Kind, f.Chat, c.ShardIndex, c.shards())
		}
		if problem := f.LeavesNoStream(c.Duration); problem != "" && c.Receivers > 0 {
			return fmt.Errorf("--schedule: %s", problem)
		}
		if slices.Contains(target.ReceiverKinds(), f.Kind) && c.Receivers == 0 {
			return fmt.Errorf("a %s is scheduled, which strikes the receivers: give --receivers too", f.Kind)
		}
		if f.Kind == target.KafkaOutage && c.KafkaOff && !c.ServerKafka {
			return fmt.Errorf("a %s is scheduled but Kafka is off", target.KafkaOutage)
		}
	}
	probs := []struct {
		name string
		v    float64
	}{
		{"--stale-read", c.Faults.StaleRead},
		{"--crash-after-allocate", c.Faults.CrashAfterAllocate},
		{"--crash-in-persist", c.Faults.CrashInPersist},
		{"--crash-after-persist", c.Faults.CrashAfterPersist},
		{"--publish-fail", c.Faults.PublishFail},
		{"--crash-before-allocate", c.Faults.CrashBeforeAllocate},
		{"--store-throttle", c.Faults.StoreThrottle},
		{"--store-internal-error", c.Faults.StoreInternalError},
		{"--txn-canceled-other", c.Faults.TxnCanceledOther},
		{"--slow-commit", c.Faults.SlowCommit},
		{"--duplicate-after-ok", c.DuplicateAfterOK},
		{"--duplicate-late", c.DuplicateLate},
		{"--concurrent-duplicate", c.ConcurrentDuplicate},
		{"--sync-ratio", c.SyncRatio},
		{"--reuse-key", c.ReuseKey},
		{"--key-across-chats", c.KeyAcrossChats},
		{"--key-across-senders", c.KeyAcrossSenders},
		{"--odd-keys", c.OddKeys},
		{"--outsider-sends", c.OutsiderSends},
		{"--outsider-syncs", c.OutsiderSyncs},
		{"--forged-senders", c.ForgedSenders},
	}
	for _, p := range probs {
		if !(p.v >= 0 && p.v <= 1) {
			return fmt.Errorf("%s is a probability in [0,1], got %g", p.name, p.v)
		}
	}
	if c.DuplicateLate > 0 && c.DuplicateLateAfter <= 0 {
		return fmt.Errorf("--duplicate-late-after must be positive, got %s", c.DuplicateLateAfter)
	}
	return nil
}

// Interval is the open-loop spacing between one writer's intended starts
// (0: closed loop). Validate makes sure it is at least a nanosecond and
// the whole schedule fits the clock.
func (c *Config) Interval() time.Duration {
	if c.Rate > 0 {
		return time.Duration(float64(c.Writers) / c.Rate * float64(time.Second))
	}
	return 0
}

// writerPhase is writer w's offset into its first open-loop interval: writers
// start 1/rate apart, so that together they send evenly, one operation
// every 1/rate, as the rate promises; at one phase every writer would send
// at once each interval, a burst that queues on the target and swells
// every tail latency (at 500 ops/s over 64 writers, a p99 twenty times an
// evenly paced one).
func (c *Config) writerPhase(w int) time.Duration {
	if c.Rate > 0 {
		return time.Duration(float64(w) / c.Rate * float64(time.Second))
	}
	return 0
}

// DropsProblem explains why a dropped receiver cannot stay offline for
// offline when the nemesis drops connections every every (0: never), or
// returns "": a device must be back before the next drop. The caller
// names offline's setting before the text, and everyName is how it
// spells every's (a flag, a scenario field).
func DropsProblem(offline, every time.Duration, everyName string) string {
	switch {
	case offline > 0 && every == 0:
		return fmt.Sprintf("is how long a dropped receiver stays offline: give %s too", everyName)
	case offline >= every && every > 0:
		return fmt.Sprintf("%s must be shorter than %s %s (a device must be back before the next drop)", offline, everyName, every)
	}
	return ""
}

// DropsNeverStrike says, unless "", that a connection nemesis striking
// every so often, its devices offline for offline each time, would never
// strike in a --duration run of duration: its last strike leaves the
// devices target.LastConnectionOpen of connection before the writers stop
// (receivers.writersStart), and the run is too short for one.
func DropsNeverStrike(offline, every, duration time.Duration) string {
	tail := max(every, offline+target.LastConnectionOpen)
	if every <= 0 || duration <= 0 || every+tail <= duration {
		return ""
	}
	return fmt.Sprintf("%s never strikes in a %s run: each strike must leave the devices' last connections %s before the writers' end for stream_completeness to judge, so the run must last at least %s",
		every, duration, tail, every+tail)
}

// RateProblem explains why an open-loop rate (operations/s in total,
// spread over writers) cannot run as asked, or returns "". The run lasts
// duration, or until ops are done when duration is 0. Each writer starts
// an operation every writers/rate seconds from its phase (writer w at
// w/rate), so a rate whose first interval reaches past the duration would
// send at most each writer's first operation: not the rate asked for. The
// rate must be more than writers/duration, and at most 10^9 per writer
// (an interval of at least a nanosecond).
func RateProblem(rate float64, writers int, duration time.Duration, ops int) string {
	switch {
	case math.IsNaN(rate) || math.IsInf(rate, 0):
		return "must be a finite number of operations/s (0: closed loop)"
	case rate < 0:
		return "must not be negative (0: closed loop)"
	case rate == 0 || writers < 1:
		return ""
	}
	interval := float64(writers) / rate * float64(time.Second) // nanoseconds
	switch {
	case interval < 1:
		return fmt.Sprintf("with %s leaves under a nanosecond between one writer's operations: the most is %g operations/s (leave the rate out for a closed loop)",
			plural(writers, "writer"), float64(writers)*float64(time.Second))
	case duration > 0 && interval >= float64(duration):
		return fmt.Sprintf("with %s starts each writer's operations %s apart, no sooner than the run's %s ends: each writer would send at most its first; give more than %.3g operations/s (one per writer per run), fewer writers or a longer duration",
			plural(writers, "writer"), seconds(interval), duration, float64(writers)/duration.Seconds())
	case duration <= 0 && float64((ops+writers-1)/writers)*interval >= math.MaxInt64:
		return fmt.Sprintf("would take %s for %s, more than the clock can count", seconds(float64((ops+writers-1)/writers)*interval), plural(ops, "operation"))
	}
	return ""
}

// seconds shows a count of nanoseconds too large for a time.Duration.
func seconds(ns float64) string {
	if ns < math.MaxInt64 {
		return time.Duration(ns).String()
	}
	return strconv.FormatFloat(ns/float64(time.Second), 'g', 3, 64) + "s"
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func (c *Config) shards() int { return max(c.ShardCount, 1) }

// LocalChats is how many chats this shard drives.
func (c *Config) LocalChats() int {
	return (c.Chats - c.ShardIndex + c.shards() - 1) / c.shards()
}

// globalChat maps this shard's k-th chat to its index in the whole run.
func (c *Config) globalChat(local int) int { return local*c.shards() + c.ShardIndex }

// ChatName is the id of this shard's k-th chat.
func (c *Config) ChatName(local int) string { return chatID(c.ChatPrefix, c.globalChat(local)) }

// The steps after the writers that Config.Phase announces (and the live
// metrics' chatseq_phase, which says PhaseWriters before them).
const (
	PhaseWriters    = "writers"
	PhaseFinalState = "recording the final state"
	PhaseEvents     = "reading the topic back"
)

func (c *Config) phase(name string) {
	c.Metrics.SetPhase(name)
	if c.Phase != nil {
		c.Phase(name)
	}
}
