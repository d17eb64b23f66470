package metrics

import (
	"slices"
	"time"

	"maps"

	"github.com/prometheus/client_golang/prometheus"
)

// ADR-004 §12's metrics keep §12's names (plus the unit and _total that
// Prometheus' conventions ask of a histogram and a counter), so dashboards
// and alerts written for the design work on chatseq as they are; chatseq's
// own are prefixed chatseq_.
var (
	descAllocLatency = prometheus.NewDesc("sequence_allocation_latency_seconds",
		"ADR-004 §12 sequence_allocation_latency: duration of step 3 (the counter ADD) of each sequence handed out; §12 alerts on its p99 above 50ms (counter contention). Empty under --strategy occ, whose allocation is the step 4 transaction.", nil, nil)
	descAllocations = prometheus.NewDesc("sequence_allocations_total",
		"Sequences step 3 handed out (the denominator of sequence_gap_rate).", nil, nil)
	descAllocErrors = prometheus.NewDesc("sequence_allocation_errors_total",
		"ADR-004 §12 sequence_allocation_errors: step 3 calls that failed (counter missing, throttled, a 500 whose outcome is unknown); §12 alerts above 0.1% of step 3 calls.", nil, nil)
	descCounterMissing = prometheus.NewDesc("counter_missing_errors_total",
		"ADR-004 §12 counter_missing_errors: operations that failed with CounterMissingError; any is a SEV-2 (a counter deleted or corrupted).", nil, nil)
	descRequests = prometheus.NewDesc("idempotency_requests_total",
		"Persist requests, each of which starts with step 1's idempotency look-up (the denominator of idempotency_hit_rate).", nil, nil)
	descHits = prometheus.NewDesc("idempotency_hits_total",
		"Persist requests step 1's idempotency look-up found a record for (§12's cache hits).", nil, nil)
	descHitRate = prometheus.NewDesc("idempotency_hit_rate",
		"ADR-004 §12 idempotency_hit_rate: step 1 hits over persist requests since the runs began; §12 alerts above 10% (a retry storm or client bugs). Not chatseq bench's report line 'idempotency hit rate', which is dedup answers over ok persists (chatseq_dedup_rate).", nil, nil)
	descPersisted = prometheus.NewDesc("sequences_persisted_total",
		"Sequences handed out by step 3 whose step 4 transaction committed (whatever the client was told afterwards).", nil, nil)
	descGapRate = prometheus.NewDesc("sequence_gap_rate",
		"ADR-004 §12 sequence_gap_rate: (allocations - persisted) / allocations since the runs began, §12's 'better approach' (gaps emitted at allocation and persistence, not counter minus message count); §12 alerts above 5% (the rule uses a window).", nil, nil)
	descTransactions = prometheus.NewDesc("transactions_total",
		"Step 4 transactions sent to the store (under occ, one per round).", nil, nil)
	descConflicts = prometheus.NewDesc("transaction_conflicts_total",
		"Step 4 transactions cancelled by a failed condition (ConditionalCheckFailed): the idempotency condition, and under occ the counter's.", nil, nil)
	descConflictRate = prometheus.NewDesc("transaction_conflict_rate",
		"ADR-004 §12 transaction_conflict_rate: step 4 ConditionalCheckFailed over step 4 transactions since the runs began; §12 alerts above 1% (race conditions, expected low).", nil, nil)
	descPerChat = prometheus.NewDesc("messages_per_chat_per_minute",
		"ADR-004 §12 messages_per_chat_per_minute: new messages acknowledged per minute in the hottest chat of the runs in progress, over the last minute (since the run began while it is younger); §12 alerts above 100 (a hot chat).", nil, nil)

	descOps = prometheus.NewDesc("chatseq_operations_total",
		"Client operations completed, by operation (persist, sync) and outcome (ok; fail: definitely did not happen; info: unknown to the client).", []string{"op", "outcome"}, nil)
	descDedup = prometheus.NewDesc("chatseq_dedup_answers_total",
		"Ok persists answered from the idempotency record (at step 1 or after losing step 4's condition) rather than as a new message.", nil, nil)
	descDedupRate = prometheus.NewDesc("chatseq_dedup_rate",
		"Dedup answers over ok persists: what chatseq bench's report calls 'idempotency hit rate' (ADR-004 §12's is idempotency_hit_rate).", nil, nil)
	descErrors = prometheus.NewDesc("chatseq_errors_total",
		"Failed and unknown operations by error code.", []string{"code"}, nil)
	descFaults = prometheus.NewDesc("chatseq_faults_injected_total",
		"Persist attempts that carried an injected fault (crash, publish failure, stale read, store error, race).", nil, nil)
	descFaultWindow = prometheus.NewDesc("chatseq_fault_window_active",
		"1 while a scheduled fault window of this kind is open (scenario schedules), else 0.", []string{"fault"}, nil)
	descRuns = prometheus.NewDesc("chatseq_runs_active",
		"Runs (bench targets, scenarios, drills) whose writers are going now.", nil, nil)
	descPhase = prometheus.NewDesc("chatseq_phase",
		"1 for what the process is doing now (writers, a drill's incident phase, recording the final state, checking).", []string{"phase"}, nil)
	descChecksStarted = prometheus.NewDesc("chatseq_checks_started_total",
		"Histories the checker began to judge.", nil, nil)
	descChecksDone = prometheus.NewDesc("chatseq_checks_completed_total",
		"Histories the checker finished judging.", nil, nil)
	descCheckRunning = prometheus.NewDesc("chatseq_check_running",
		"1 while the checker judges a history.", nil, nil)
	descCheckBytes = prometheus.NewDesc("chatseq_check_history_bytes",
		"Size of the history the checker judges now, or judged last.", nil, nil)
	descViolations = prometheus.NewDesc("chatseq_violations_total",
		"Invariants the online check found violated while the writers ran, by invariant (each run counts an invariant once, at its first violation).", []string{"invariant"}, nil)
	descInvariants = prometheus.NewDesc("chatseq_invariants_judged_total",
		"Invariants judged by finished checks, by verdict (pass, fail, unknown, n/a).", []string{"verdict"}, nil)
)

var allDescs = []*prometheus.Desc{
	descAllocLatency, descAllocations, descAllocErrors, descCounterMissing,
	descRequests, descHits, descHitRate, descPersisted, descGapRate,
	descTransactions, descConflicts, descConflictRate, descPerChat,
	descOps, descDedup, descDedupRate, descErrors, descFaults, descFaultWindow,
	descRuns, descPhase, descChecksStarted, descChecksDone, descCheckRunning,
	descCheckBytes, descInvariants, descViolations,
}

// Describe is prometheus.Collector's.
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range allDescs {
		ch <- d
	}
}

// Collect is prometheus.Collector's: every live run is read now.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	s := e.snapshot(time.Now())
	t := &s.t
	counter := func(d *prometheus.Desc, v int64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}

	buckets := make(map[float64]uint64, len(AllocationBuckets))
	var cumulative uint64
	for i, le := range AllocationBuckets {
		cumulative += t.AllocateBuckets[i]
		buckets[le] = cumulative
	}
	ch <- prometheus.MustNewConstHistogram(descAllocLatency, uint64(t.Allocations),
		time.Duration(t.AllocateNanos).Seconds(), buckets)
	counter(descAllocations, t.Allocations)
	counter(descAllocErrors, t.AllocationErrs)
	counter(descCounterMissing, t.CounterMissing)
	counter(descRequests, t.Requests)
	counter(descHits, t.IdempotencyHits)
	gauge(descHitRate, ratio(t.IdempotencyHits, t.Requests))
	counter(descPersisted, t.Persisted)
	gauge(descGapRate, ratio(t.Allocations-t.Persisted, t.Allocations))
	counter(descTransactions, t.Transactions)
	counter(descConflicts, t.Conflicts)
	gauge(descConflictRate, ratio(t.Conflicts, t.Transactions))
	gauge(descPerChat, s.hottest)

	for o := range outcomeCount {
		counter(descOps, t.Persists[o], "persist", outcomeNames[o])
		counter(descOps, t.Syncs[o], "sync", outcomeNames[o])
	}
	counter(descDedup, t.Dedup)
	gauge(descDedupRate, ratio(t.Dedup, t.Persists[OK]))
	for _, code := range slices.Sorted(maps.Keys(t.Errors)) {
		counter(descErrors, t.Errors[code], code)
	}
	counter(descFaults, t.FaultsInjected)
	for _, kind := range slices.Sorted(maps.Keys(s.faultWindows)) {
		gauge(descFaultWindow, boolValue(s.faultWindows[kind]), kind)
	}
	gauge(descRuns, float64(s.live))
	if s.phase != "" {
		gauge(descPhase, 1, s.phase)
	}
	counter(descChecksStarted, s.check.started)
	counter(descChecksDone, s.check.completed)
	gauge(descCheckRunning, boolValue(s.check.running))
	gauge(descCheckBytes, float64(s.check.historyBytes))
	for _, name := range slices.Sorted(maps.Keys(s.check.violations)) {
		counter(descViolations, s.check.violations[name], name)
	}
	for _, v := range slices.Sorted(maps.Keys(s.check.invariants)) {
		counter(descInvariants, s.check.invariants[v], v)
	}
}

func ratio(a, b int64) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
