// Package scenarios reads scenario files (strict YAML, see
// docs/scenarios.md), runs each one through the bench runner, checks its
// history and judges the result against the scenario's expectation and
// thresholds. It also writes JUnit reports and shrinks failing runs.
package scenarios

import (
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/target"
)

// Scenario is one decoded scenario file. Every field has been validated;
// zero values mean "not given" only where noted.
type Scenario struct {
	File        string // the path it was read from, as given
	Name        string // unique within a run; names the history file
	Description string

	// Target names what is driven: a store kind (memory, dynamodb,
	// dynamodb-local: ADR-004's core over that store) or another
	// registered design.
	Target   string
	Strategy sequencer.Strategy
	// Serve runs Target as chatseq serve in a process of its own, over
	// a store and a Kafka that outlive it, and drives it over HTTP
	// (target http), so kill_server faults SIGKILL and restart it
	// (served.go).
	Serve bool
	// Contract overrides the target's promise field by field; empty
	// fields keep the target's.
	Contract history.Contract
	KafkaOff bool

	Writers      int
	Chats        int
	Distribution string
	ZipfS        float64
	Rate         float64       // ops/s in total; 0 = closed loop
	Stages       []bench.Stage // a ramping open loop instead; Duration is their sum
	Duration     time.Duration
	Ops          int
	Seed         int64

	DuplicateAfterOK    float64
	DuplicateLate       float64
	DuplicateLateAfter  time.Duration // 0: bench's default
	ConcurrentDuplicate float64
	ReuseKey            float64
	KeyAcrossChats      float64
	KeyAcrossSenders    float64
	OddKeys             float64
	OutsiderSends       float64
	OutsiderSyncs       float64
	MaxAttempts         int
	RepublishOnReplay   bool
	// FailFast stops the writers at the online check's first violation
	// (bench --fail-fast); the run is then checked whole, as any.
	FailFast bool
	// Retries is how many more times the scenario runs while it fails
	// only thresholds (RunRetrying); chatseq run --retries replaces it.
	Retries    int
	SyncRatio  float64
	SyncLimit  int
	Readers    int           // catch-up clients following every chat by cursor
	ReaderPoll time.Duration // 0: bench.DefaultReaderPoll
	// Receivers are each chat's receiving members, one device each, on
	// the push channel (bench --receivers); DropConnectionsEvery drops
	// every device's connection on that clock (0: never).
	Receivers            int
	DropConnectionsEvery time.Duration
	// DropConnectionsFor keeps a dropped device offline this long
	// (bench --drop-connections-for; 0: it reconnects at once).
	DropConnectionsFor time.Duration

	Faults         bench.FaultRates
	Schedule       []target.TimedFault
	InitialCounter uint64
	// Variant is the target's variant the scenario runs (broken: a bug,
	// variant: a design that keeps a promise), "" for the design as
	// written; Design says it is one of the latter.
	Variant sequencer.Variant
	Design  bool
	// Notes are what the file still says the old way (broken: naming a
	// design), each "file:line: …", for the runner to print.
	Notes []string

	Thresholds []Threshold
	Expect     Expectation
	// AllowUnknown lists invariants this scenario cannot decide (a sync
	// check in a run without syncs): they may be unknown without making
	// a pass scenario undecided. They must still not fail.
	AllowUnknown []string
	// Require lists invariants this scenario must have judged: one the
	// history holds none of the evidence for (n/a otherwise, say
	// sync_completeness in a run without syncs) is unknown, as with
	// chatseq check --require.
	Require []string
}

// Expectation is what the check must conclude.
type Expectation struct {
	// Violates lists invariants that must each be reported failing; empty
	// means every invariant must pass.
	Violates []string
	Line     int // where expect is written, for messages
}

// Negative reports whether the scenario expects violations.
func (e Expectation) Negative() bool { return len(e.Violates) > 0 }

// String is the expectation as the summary table shows it.
func (e Expectation) String() string {
	if !e.Negative() {
		return "pass"
	}
	s := "violates "
	for i, v := range e.Violates {
		if i > 0 {
			s += ","
		}
		s += v
	}
	return s
}

// Defaults of keys a scenario leaves out. Probabilities default to zero: a
// scenario names every fault it wants, so a reader sees the whole run.
const (
	defaultTarget      = "memory"
	defaultWriters     = 1
	defaultChats       = 1
	defaultZipfS       = 1.1
	defaultSeed        = 1
	defaultMaxAttempts = 20
	defaultSyncLimit   = 100
)

func newScenario(file string) *Scenario {
	return &Scenario{
		File: file, Target: defaultTarget, Strategy: sequencer.TwoPhase,
		Writers: defaultWriters, Chats: defaultChats, Distribution: bench.Uniform, ZipfS: defaultZipfS,
		Seed: defaultSeed, MaxAttempts: defaultMaxAttempts, SyncLimit: defaultSyncLimit,
		RepublishOnReplay: true,
	}
}

// Config is the bench configuration the scenario runs with, before the
// runner sets the history path, chat prefix and the target's contract.
func (s *Scenario) Config() bench.Config {
	cfg := bench.DefaultConfig()
	cfg.Writers, cfg.Chats = s.Writers, s.Chats
	cfg.Distribution, cfg.ZipfS = s.Distribution, s.ZipfS
	cfg.Rate, cfg.Duration, cfg.Ops, cfg.Seed = s.Rate, s.Duration, s.Ops, s.Seed
	cfg.Stages = s.Stages
	cfg.Faults = s.Faults
	cfg.Timed = append([]target.TimedFault(nil), s.Schedule...)
	cfg.InitialCounter = s.InitialCounter
	cfg.DuplicateAfterOK, cfg.ConcurrentDuplicate, cfg.ReuseKey = s.DuplicateAfterOK, s.ConcurrentDuplicate, s.ReuseKey
	cfg.DuplicateLate, cfg.KeyAcrossChats, cfg.OutsiderSends = s.DuplicateLate, s.KeyAcrossChats, s.OutsiderSends
	cfg.KeyAcrossSenders, cfg.OddKeys, cfg.OutsiderSyncs = s.KeyAcrossSenders, s.OddKeys, s.OutsiderSyncs
	if s.DuplicateLateAfter > 0 {
		cfg.DuplicateLateAfter = s.DuplicateLateAfter
	}
	cfg.SyncRatio, cfg.SyncLimit, cfg.MaxAttempts = s.SyncRatio, s.SyncLimit, s.MaxAttempts
	cfg.Readers, cfg.ReaderPoll = s.Readers, s.ReaderPoll
	cfg.Receivers, cfg.DropConnectionsEvery, cfg.DropConnectionsFor = s.Receivers, s.DropConnectionsEvery, s.DropConnectionsFor
	cfg.Variant, cfg.Strategy, cfg.RepublishOnReplay = s.Variant, s.Strategy, s.RepublishOnReplay
	cfg.KafkaOff = s.KafkaOff
	cfg.Target, cfg.Scenario = s.Target, s.Name
	return cfg
}
