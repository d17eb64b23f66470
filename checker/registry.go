package checker

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/internal/parallel"
)

// registry is every invariant the checker reports, in report order: adding
// one is its file (the judge, and the promise when the contract decides
// whether it applies) and its line here. checkIndex judges a history by
// walking this list; INVARIANTS.md says what each one means.
var registry = []invariant{
	{name: NameSequenceUniqueness, reads: operations | finalMessages, judge: plain(checkSequenceUniqueness)},
	{name: NameNoZeroSequence, reads: operations | allocations | finalMessages | finalIdempotency | finalEvents, judge: plain(checkNoZeroSequence)},
	{name: NameAllocationMonotonicity, reads: allocations, judge: plain(checkAllocationMonotonicity)},
	{name: NameSequenceMonotonic, reads: operations | bindsFinalMessages, judge: plain(checkSequenceMonotonic)},
	{name: NameCounterIsLastAllocated, reads: operations | allocations | finalCounters, judge: plain(checkCounterIsLastAllocated)},
	{name: NameSequenceMonotonicity, reads: operations | finalCounters | finalMessages | finalIdempotency, judge: plain(checkSequenceMonotonicity)},
	{name: NameCounterLowerBound, reads: operations | finalCounters | finalMessages, judge: judgeCounterLowerBound},
	{name: NameIdempotencyGuarantee, reads: operations | finalMessages, judge: judgeIdempotencyGuarantee},
	{name: NameIdempotencySeqConsist, reads: operations | finalMessages | finalIdempotency, judge: plain(checkIdempotencySequenceConsistency)},
	{name: NameAckImpliesPersistence, reads: operations | finalMessages, judge: plain(checkAckImpliesPersistence)},
	{name: NameFailHasNoEffect, reads: operations | finalMessages | finalIdempotency, judge: judgeFailHasNoEffect},
	{name: NameNoPhantomMessages, reads: operations | finalMessages | finalIdempotency, judge: plain(checkNoPhantomMessages)},
	{name: NameGapIsAllocation, reads: operations | allocations | finalCounters | finalMessages, judge: judgeGaps},
	{name: NameGapless, reads: operations | finalCounters | finalMessages | finalIdempotency, promise: gaplessPromise, judge: judgeGapless},
	{name: NameKeyReuse, reads: operations, promise: keyReusePromise, judge: plain(checkKeyReuse)},
	{name: NameSyncCompleteness, reads: operations | finalMessages, judge: judgeSyncCompleteness, start: startSecond},
	{name: NameEventCompleteness, reads: operations | finalMessages | finalEvents, promise: eventCompletenessPromise, judge: judgeEventCompleteness, start: startThird},
	{name: NameCatchUpCompleteness, reads: operations | finalMessages, promise: catchUpPromise, absent: catchUpEvidence, judge: judgeCatchUpCompleteness, tally: tallyCatchUp, cited: true},
	{name: NameEventOrder, reads: finalEvents, promise: eventOrderPromise, absent: eventOrderEvidence, judge: judgeEventOrder, tally: tallyEventOrder, cited: true},
	{name: NameAPIConformance, reads: operations, judge: judgeAPIConformance},
	{name: NameEventualVisibility, reads: receiverLines | operations | finalMessages, judge: plain(checkEventualVisibility)},
	{name: NameIdenticalOrder, reads: receiverLines | operations | finalMessages, judge: plain(checkIdenticalOrder)},
	{name: NameDeliveryStateConsistency, reads: receiverLines | finalDeliveryState, judge: plain(checkDeliveryStateConsistency)},
	{name: NamePushAuthorization, reads: receiverLines, judge: plain(checkPushAuthorization)},
	{name: NameSendAuthorization, reads: receiverLines | operations, promise: sendMembershipPromise, judge: plain(checkSendAuthorization)},
	{name: NameReadAuthorization, reads: receiverLines | operations, promise: readMembershipPromise, judge: plain(checkReadAuthorization)},
	{name: NameStreamContinuity, reads: receiverLines | finalEvents, judge: plain(checkStreamContinuity)},
	{name: NameStreamCompleteness, reads: receiverLines | operations, promise: streamStartPromise, judge: judgeStreamCompleteness},
	{name: NameLinearizability, reads: operations | bindsFinalMessages, promise: linearizabilityPromise, judge: judgeLinearizability, start: startFirst},
}

// InvariantNames lists every invariant in report order.
var InvariantNames = func() []string {
	names := make([]string, len(registry))
	for i, inv := range registry {
		names[i] = inv.name
	}
	return names
}()

// invariant is one entry of the registry.
type invariant struct {
	// name is the invariant's name as HISTORY.md spells it and the
	// report shows it.
	name string
	// reads is the evidence it judges: which lines of the history.
	reads lineKinds
	// promise says whether the contract requires it; nil: every contract
	// does.
	promise func(j *judging) promise
	// absent says, before it is judged, why the history holds none of
	// its evidence ("" when it holds some); nil: judge says so itself
	// (verdict.notApplicable).
	absent func(j *judging) string
	// judge decides it, and puts what it counts into j.stats.
	judge func(j *judging) Result
	// tally, when the contract does not promise it but the history holds
	// its evidence, counts what judge would have put into j.stats: they
	// are facts of the run, which thresholds read under any contract.
	tally func(j *judging)
	// cited: a failure quotes the design's own words for the promise it
	// breaks (the header's claims, history.ClaimsField).
	cited bool
	// start orders the tasks: the longest start first (parallel.RunAll).
	start startRank
}

// lineKinds are the kinds of lines of a history an invariant reads.
type lineKinds uint16

const (
	operations       lineKinds = 1 << iota // invokes and completions: acks, syncs, fails
	allocations                            // allocate traces
	finalMessages                          // the final messages table
	finalCounters                          // the final counters table
	finalIdempotency                       // the final idempotency table
	finalEvents                            // the final events (the topic read back)
	// bindsFinalMessages: the final messages and idempotency tables (and,
	// for linearizability, the counter) only bind operations of unknown
	// outcome, which without them are wildcards (sound): a history cut
	// short is judged without them (linearizability, sequence_monotonic).
	bindsFinalMessages
	receiverLines      // the receivers' lines: pushes, delivery acks, membership, settles
	finalDeliveryState // the final delivery_state table

	finalLines = finalMessages | finalCounters | finalIdempotency | finalEvents | finalDeliveryState
)

// startRank orders the tasks: linearizability first, beside the other
// invariants (chats are decided a few at a time, and the others fill the
// cores those leave idle; a chat holding most of the operations is one
// long task, and started last it was decided alone, 1.75 s after 1.06 s of
// invariants at the end of a 10 s run), then the next longest: sync
// completeness (at the end of the list, 0.52 s after a 10 s run, it ran on
// one core for the last 0.1 to 0.3 s while the other had nothing left) and
// event completeness; the others in report order.
type startRank int

const (
	startFirst startRank = iota + 1
	startSecond
	startThird
	startInOrder startRank = 0 // the zero value, after the ranked ones
)

func (r startRank) order() int {
	if r == startInOrder {
		return math.MaxInt
	}
	return int(r)
}

// promise is what the contract says of one invariant: judged, not
// applicable (reason), or unknown (undefined: a value HISTORY.md does not
// define).
type promise struct {
	reason    string // not applicable under the contract: why
	undefined string // the contract cannot tell: the unknown's detail
	// undefinedCutShort: an undefined value's unknown is still adjusted
	// for a history cut short (catch_up and event_order, as before the
	// registry), where the others' contract verdicts are not.
	undefinedCutShort bool
}

func (p promise) judged() bool { return p.reason == "" && p.undefined == "" }

// notPromised is an invariant the contract does not require.
func notPromised(reason string) promise { return promise{reason: reason} }

// undefinedValue is a contract field whose value HISTORY.md does not
// define: whether the invariant applies cannot be told.
func undefinedValue(field, value string) promise {
	return promise{undefined: fmt.Sprintf("contract %s %q is not a value HISTORY.md defines: cannot tell whether this invariant applies", field, value)}
}

// undefinedValueCutShort is undefinedValue for an invariant whose unknown
// verdict also says a cut-short run could not be judged.
func undefinedValueCutShort(field, value string) promise {
	p := undefinedValue(field, value)
	p.undefinedCutShort = true
	return p
}

// judging is one check's shared state: what the invariants read, and the
// statistics they count (each its own fields, so that they run side by
// side).
type judging struct {
	x      *index
	con    history.Contract
	stated bool // the contract states events (else they are inferred)
	opt    Options
	claims map[string]string
	// overHTTP: the history was recorded over chatseq's HTTP API (its
	// header's target is http), whose answers mark a replay
	// (api_conformance).
	overHTTP bool

	readersOnce sync.Once
	rs          []reader
	marked      int

	stats judgedStats
}

// judgedStats are what the invariants count for Stats.
type judgedStats struct {
	gaps               gapStats
	late, dups         int
	missed, outOfOrder int
	decided, undecided int
}

// readers are the history's catch-up readers, grouped once.
func (j *judging) readers() ([]reader, int) {
	j.readersOnce.Do(func() { j.rs, j.marked = j.x.readers() })
	return j.rs, j.marked
}

// plain adapts a check that reads the index alone.
func plain(check func(x *index) Result) func(j *judging) Result {
	return func(j *judging) Result { return check(j.x) }
}

// judgeAll decides every registered invariant of j, side by side with
// extra (statistics that are no invariant's), into results by name.
// byContract holds those the contract decided (n/a or unknown under it),
// which a history cut short leaves as they are.
func judgeAll(j *judging, extra []func()) (results map[string]Result, byContract map[string]bool) {
	results, byContract = map[string]Result{}, map[string]bool{}
	var mu sync.Mutex
	put := func(res Result) {
		mu.Lock()
		results[res.Name] = res
		mu.Unlock()
	}
	type task struct {
		start startRank
		run   func()
	}
	var tasks []task
	for _, inv := range registry {
		p := promise{}
		if inv.promise != nil {
			p = inv.promise(j)
		}
		switch {
		case p.reason != "":
			byContract[inv.name] = true
			put(Result{Name: inv.name, Status: statusNA, Detail: p.reason, Lines: []int{}})
		case p.undefined != "":
			byContract[inv.name] = !p.undefinedCutShort
			put(Result{Name: inv.name, Status: Unknown, Detail: p.undefined, Lines: []int{}})
		}
		absent := ""
		if inv.absent != nil {
			absent = inv.absent(j)
		}
		switch {
		case !p.judged():
			if inv.tally != nil && absent == "" {
				tasks = append(tasks, task{inv.start, func() { inv.tally(j) }})
			}
		case absent != "":
			put(absentResult(inv.name, absent))
		default:
			tasks = append(tasks, task{inv.start, func() {
				res := inv.judge(j)
				if claim := j.claims[res.Name]; inv.cited && claim != "" && res.Status == Fail {
					res.Detail = claim + "; violated: " + res.Detail
				}
				put(res)
			}})
		}
	}
	slices.SortStableFunc(tasks, func(a, b task) int { return cmp.Compare(a.start.order(), b.start.order()) })
	run := make([]func(), 0, len(tasks)+len(extra))
	for _, t := range tasks {
		run = append(run, t.run)
	}
	parallel.RunAll(append(run, extra...))
	return results, byContract
}

// invariantOf is the registry's entry for name.
func invariantOf(name string) (invariant, bool) {
	i := slices.IndexFunc(registry, func(inv invariant) bool { return inv.name == name })
	if i < 0 {
		return invariant{}, false
	}
	return registry[i], true
}

// absentResult is name, not applicable because the history holds none of
// the evidence it reads.
func absentResult(name, reason string) Result {
	v := newVerdict(name)
	v.notApplicable("%s", reason)
	return v.result()
}
