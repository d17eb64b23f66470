// Package metrics exports a run's figures live for Prometheus: ADR-004
// §12's metrics under their names, the run's own (operations by outcome,
// faults injected, what phase it is in, checker progress), and §12's alert
// thresholds as Prometheus alerting rules (alerts.go).
//
// The hot path never touches Prometheus: a run keeps plain counters in a
// Tally under a lock it already holds (bench folds its operations into one
// a batch at a time), and the Exporter reads every live run's Tally when
// it is scraped.
package metrics

import (
	"time"

	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/sequencer"
)

// Outcome is how a client saw an operation end.
type Outcome uint8

const (
	OK   Outcome = iota // acknowledged
	Fail                // definitely did not happen
	Info                // unknown: the client must assume either
	outcomeCount
)

var outcomeNames = [outcomeCount]string{"ok", "fail", "info"}

// Op is one completed client operation.
type Op struct {
	Sync    bool
	Outcome Outcome
	Code    string // error code of a fail or info
	Dedup   bool   // an ok persist answered from the idempotency record
	Faulted bool   // the attempt carried an injected fault
	// Chat is the chat's index in the run, for messages_per_chat_per_minute;
	// negative: not counted.
	Chat int
	// Allocated: step 3 handed out a sequence, in AllocateNanos.
	Allocated     bool
	AllocateNanos int64
	Steps         sequencer.StepEvents
}

// AllocationBuckets are sequence_allocation_latency's upper bounds in
// seconds: from an embedded store's microsecond to a stalled DynamoDB's
// seconds, with §12's 50 ms threshold a bound, so the alert's quantile is
// not interpolated across it.
var AllocationBuckets = [bucketCount]float64{
	1e-6, 2.5e-6, 5e-6, 10e-6, 25e-6, 50e-6, 100e-6, 250e-6, 500e-6,
	0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
}

const bucketCount = 22

// bucketBounds are AllocationBuckets in nanoseconds, for the hot path.
var bucketBounds = func() []int64 {
	b := make([]int64, bucketCount)
	for i, s := range AllocationBuckets {
		b[i] = int64(s * float64(time.Second))
	}
	return b
}()

// Tally is a run's counts since it began. It is not safe for concurrent
// use: its owner guards it.
type Tally struct {
	Persists, Syncs [outcomeCount]int64
	Dedup           int64 // ok persists answered from the idempotency record
	FaultsInjected  int64
	Errors          map[string]int64 // fail and info by error code

	// ADR-004 §12.
	Requests        int64                   // persist requests (each reaches step 1)
	IdempotencyHits int64                   // of those, step 1 found the key's record
	Allocations     int64                   // sequences step 3 handed out
	AllocationErrs  int64                   // step 3 calls that failed
	AllocateBuckets [bucketCount + 1]uint64 // per bucket, the last unbounded
	AllocateNanos   int64                   // the latencies' sum
	Persisted       int64                   // allocated sequences a step 4 transaction committed
	CounterMissing  int64
	Transactions    int64 // step 4 transactions
	Conflicts       int64 // of those, cancelled by a failed condition
	// ChatMessages counts new messages acknowledged, by chat index.
	ChatMessages []int64
}

// NewTally is an empty tally for a run over chats chats.
func NewTally(chats int) *Tally {
	return &Tally{Errors: map[string]int64{}, ChatMessages: make([]int64, chats)}
}

// Add counts one operation.
func (t *Tally) Add(op *Op) {
	if op.Sync {
		t.Syncs[op.Outcome]++
	} else {
		t.addPersist(op)
	}
	if op.Outcome != OK {
		if t.Errors == nil {
			t.Errors = map[string]int64{}
		}
		t.Errors[op.Code]++
		if op.Code == sequencer.CodeCounterMissing {
			t.CounterMissing++
		}
	}
}

func (t *Tally) addPersist(op *Op) {
	t.Persists[op.Outcome]++
	t.Requests++
	if op.Faulted {
		t.FaultsInjected++
	}
	st := &op.Steps
	if st.IdempotencyHit {
		t.IdempotencyHits++
	}
	if st.AllocateFailed {
		t.AllocationErrs++
	}
	if op.Allocated {
		t.Allocations++
		t.AllocateNanos += op.AllocateNanos
		t.AllocateBuckets[bucketOf(op.AllocateNanos)]++
		if st.Committed {
			t.Persisted++
		}
	}
	t.Transactions += int64(st.Transactions)
	t.Conflicts += int64(st.Conflicts)
	if op.Outcome == OK {
		if op.Dedup {
			t.Dedup++
		} else if op.Chat >= 0 && op.Chat < len(t.ChatMessages) {
			t.ChatMessages[op.Chat]++
		}
	}
}

// bucketOf is the index of the first bucket whose bound is at least ns.
func bucketOf(ns int64) int {
	lo, hi := 0, len(bucketBounds)
	for lo < hi {
		mid := (lo + hi) / 2
		if bucketBounds[mid] < ns {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// AddTo adds t's counts to dst; chat counts only when dst keeps them.
func (t *Tally) AddTo(dst *Tally) {
	for i := range t.Persists {
		dst.Persists[i] += t.Persists[i]
		dst.Syncs[i] += t.Syncs[i]
	}
	dst.Dedup += t.Dedup
	dst.FaultsInjected += t.FaultsInjected
	if len(t.Errors) > 0 && dst.Errors == nil {
		dst.Errors = map[string]int64{}
	}
	for k, v := range t.Errors {
		dst.Errors[k] += v
	}
	dst.Requests += t.Requests
	dst.IdempotencyHits += t.IdempotencyHits
	dst.Allocations += t.Allocations
	dst.AllocationErrs += t.AllocationErrs
	for i := range t.AllocateBuckets {
		dst.AllocateBuckets[i] += t.AllocateBuckets[i]
	}
	dst.AllocateNanos += t.AllocateNanos
	dst.Persisted += t.Persisted
	dst.CounterMissing += t.CounterMissing
	dst.Transactions += t.Transactions
	dst.Conflicts += t.Conflicts
	for i := range min(len(t.ChatMessages), len(dst.ChatMessages)) {
		dst.ChatMessages[i] += t.ChatMessages[i]
	}
}

// OutcomeOf is how a history completion kind counts.
func OutcomeOf(k history.Kind) Outcome {
	switch k {
	case history.KindOK:
		return OK
	case history.KindFail:
		return Fail
	}
	return Info
}

// PersistOp is one persist as a client saw it end (kind and code, as
// target.Completion gives them) with what the core's steps met; chat < 0
// leaves it out of messages_per_chat_per_minute.
func PersistOp(kind history.Kind, code string, out sequencer.Outcome, faulted bool, chat int) Op {
	return Op{
		Outcome: OutcomeOf(kind), Code: code, Dedup: out.Dedup, Faulted: faulted, Chat: chat,
		Allocated: out.Allocated > 0, AllocateNanos: out.Timings.Allocate, Steps: out.Steps,
	}
}
