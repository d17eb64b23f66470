package checker

import (
	"fmt"
	"maps"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/internal/timings"
)

// Check judges h against every invariant HISTORY.md names. Invariants the
// contract does not require, or whose evidence a complete history lacks
// entirely, are listed as not applicable with a reason (unknown when
// opt.Require names them); none is silently skipped.
//
// A history cut short (its header promised an end line it lacks) is judged
// without its final lines, which a writer killed halfway through them left
// incomplete: every invariant that reads final lines is unknown unless the
// operations alone prove a violation (see cutShort).
func Check(h *history.History, opt Options) Report {
	began := time.Now()
	return logOf(h).check(h, opt, began)
}

// CheckFile reads the history at path straight into a Log, never holding
// it whole, and judges it as Check does. The History returned holds the
// header and the reader's warnings; a file that cannot be read is an error
// (its *history.ParseError names the line).
func CheckFile(path string, opt Options) (Report, *history.History, error) {
	began := time.Now()
	l := NewLog()
	h, err := history.ScanFile(path, l)
	if err != nil {
		return Report{}, nil, err
	}
	return l.check(h, opt, began), h, nil
}

// Check judges the lines the Log took, with the header, warnings and end
// of the file they came from (h need hold no lines). A Log is checked once.
func (l *Log) Check(h *history.History, opt Options) Report {
	return l.check(h, opt, time.Now())
}

func (l *Log) check(h *history.History, opt Options, began time.Time) Report {
	hasEvents := h.TableRead(history.TableEvents)
	l.fin.each(func(f *cfin) { hasEvents = hasEvents || f.Table == tableEvents })
	note := cutShortNoteOf(h)
	cut := note != ""
	finals := l.fin.len()
	tablesRead := h.TablesRead
	if cut {
		l.fin, tablesRead = chunked[cfin]{}, nil
	}
	defer timings.Phase("check: all")()
	// The key scope decides how keys are numbered, before any invariant.
	scope, _ := resolveContract(h.Header.Contract, opt.Contract, hasEvents)
	soleWriter := h.Header.SoleWriter()
	if opt.SoleWriter != nil {
		soleWriter = *opt.SoleWriter
	}
	x := buildIndex(l, h.Header, tablesRead, scope.KeyScope == history.KeyScopeClient, soleWriter)
	if cut {
		x.warn("%s: none of its %d final lines is judged, and every invariant that reads final lines is unknown unless the operations alone violate it",
			note, finals)
	}
	return checkIndex(x, h, opt, began, hasEvents, note)
}

// checkIndex judges x; cutNote, unless empty, says why its final lines
// were dropped (cutShortNoteOf).
func checkIndex(x *index, h *history.History, opt Options, began time.Time, hasEvents bool, cutNote string) Report {
	built := len(x.warnings) // later warnings come from concurrent checkers
	con, stated := resolveContract(h.Header.Contract, opt.Contract, hasEvents)
	r := Report{Contract: con, Invariants: []Result{}, NotApplicable: []NotApplicable{}}

	results := map[string]Result{}
	var mu sync.Mutex
	put := func(res Result) {
		mu.Lock()
		results[res.Name] = res
		mu.Unlock()
	}
	// Invariants that do not apply under the contract (or whose contract
	// value HISTORY.md does not define), whatever the history holds.
	byContract := map[string]bool{}
	notApplicable := func(name, reason string) {
		byContract[name] = true
		put(Result{Name: name, Status: statusNA, Detail: reason, Lines: []int{}})
	}
	var gs gapStats
	late, dups := 0, 0
	var ops Stats
	var intervalAllocs, intervalGaps []int64

	// The exact checkers only read the index, so they run side by side.
	// The longest first, beside linearizability: sync completeness last
	// in the list (0.52 s after a 10 s run) ran on one core for the last
	// 0.1 to 0.3 s while the other had nothing left.
	tasks := []func(){
		func() { var res Result; res, late = checkSyncCompleteness(x); put(res) },
		func() { put(checkSequenceUniqueness(x)) },
		func() { put(checkNoZeroSequence(x)) },
		func() { put(checkAllocationMonotonicity(x)) },
		func() { put(checkSequenceMonotonic(x)) },
		func() { put(checkCounterIsLastAllocated(x)) },
		func() { put(checkSequenceMonotonicity(x)) },
		func() { put(checkCounterLowerBound(x)) },
		func() { put(checkIdempotencyGuarantee(x)) },
		func() { put(checkIdempotencySequenceConsistency(x)) },
		func() { put(checkAckImpliesPersistence(x)) },
		func() { put(checkFailHasNoEffect(x, con.KeyReuse == history.KeyReuseReject)) },
		func() { put(checkNoPhantomMessages(x)) },
		func() { var res Result; res, gs = checkGaps(x); put(res) },
		func() { put(checkAPIConformance(x)) },
		func() { ops = x.opStats() },
		func() {
			if opt.Interval > 0 {
				intervalAllocs, intervalGaps = x.intervalGaps(opt.Interval)
			}
		},
	}
	// Catch-up completeness and per-chat event order (findings.go).
	var fs findingStats
	tasks = append(tasks, findingTasks(x, con, claimsOf(h.Header, x), put, notApplicable, &fs)...)
	switch con.Gaps {
	case history.GapsForbidden:
		tasks = append(tasks, func() { put(checkGapless(x, con.KeyReuse == history.KeyReuseReject)) })
	case history.GapsAllowed:
		// Worded for any design: the header may be another system's.
		notApplicable(NameGapless, "contract gaps: allowed (the design may skip sequences; gap_is_allocation_without_persistence accounts for each gap)")
	default:
		byContract[NameGapless] = true
		put(badContract(NameGapless, "gaps", con.Gaps))
	}
	switch con.KeyReuse {
	case history.KeyReuseReject:
		tasks = append(tasks, func() { put(checkKeyReuse(x)) })
	case history.KeyReuseReturnOriginal:
		notApplicable(NameKeyReuse, "contract key_reuse: return-original (a reused key must get the original sequence: idempotency_guarantee judges that)")
	default:
		byContract[NameKeyReuse] = true
		put(badContract(NameKeyReuse, "key_reuse", con.KeyReuse))
	}
	switch con.Events {
	case history.EventsAtLeastOnce:
		// Early, beside sync completeness: at the end of the list it
		// was the last task of a default run's check, alone on a core.
		tasks = slices.Insert(tasks, 1, func() { var res Result; res, dups = checkEventCompleteness(x); put(res) })
	case history.EventsNone:
		if stated {
			notApplicable(NameEventCompleteness, "contract events: none")
		} else {
			notApplicable(NameEventCompleteness, "no final events lines and the contract does not state events")
		}
	default:
		byContract[NameEventCompleteness] = true
		put(badContract(NameEventCompleteness, "events", con.Events))
	}
	decided, undecided := 0, 0
	if res := contractProblem(con); res != "" {
		byContract[NameLinearizability] = true
		put(Result{Name: NameLinearizability, Status: Unknown, Detail: "the model needs a valid contract: " + res, Lines: []int{}})
	}
	linearize := func() {
		defer timings.Phase("linearizability")()
		var res Result
		res, decided, undecided = checkLinearizability(x, con, opt)
		put(res)
	}
	if _, invalid := byContract[NameLinearizability]; !invalid {
		// First, beside the other invariants: chats are decided a few
		// at a time, each let go when done, and the others fill the
		// cores those leave idle. A chat holding most of the
		// operations is one long task, so starting it first keeps it
		// off the end: with one chat it was decided after the rest,
		// 1.75 s alone after 1.06 s of invariants at the end of a
		// 10 s run, for 6% more peak memory beside them (0.72 against
		// 0.76 GB on the 1M-persist hot chat).
		tasks = append([]func(){linearize}, tasks...)
	}
	done := timings.Phase("invariants")
	runAll(tasks)
	done()

	if cutNote != "" {
		for name, res := range results {
			if !byContract[name] {
				results[name] = cutShort(res, cutNote)
			}
		}
	}
	required := map[string]bool{}
	for _, name := range opt.Require {
		if !slices.Contains(InvariantNames, name) {
			x.warn("--require %q: not an invariant the checker reports; ignored", name)
		}
		required[name] = true
	}
	for _, name := range InvariantNames {
		res, ok := results[name]
		switch {
		case !ok:
		case res.Status == statusNA && required[name]:
			res.Status = Unknown
			res.Detail = "required, but not applicable: " + res.Detail
			r.Invariants = append(r.Invariants, res)
		case res.Status == statusNA:
			r.NotApplicable = append(r.NotApplicable, NotApplicable{Name: name, Reason: res.Detail})
		default:
			r.Invariants = append(r.Invariants, res)
		}
	}
	r.Warnings = make([]string, 0, len(h.Warnings)+len(x.warnings))
	for _, w := range h.Warnings {
		r.Warnings = append(r.Warnings, fmt.Sprintf("line %d: %s", w.Line, w.Message))
	}
	slices.Sort(x.warnings[built:])
	r.Warnings = append(r.Warnings, x.warnings...)
	r.Stats = x.stats(ops, gs, late, dups)
	r.Stats.IntervalAllocations, r.Stats.IntervalGaps = intervalAllocs, intervalGaps
	r.Stats.LinearizabilityChats, r.Stats.LinearizabilityUndecided = decided, undecided
	r.Stats.CatchUpMissed, r.Stats.EventsOutOfOrder = fs.missed, fs.outOfOrder
	r.Stats.CheckMillis = time.Since(began).Milliseconds()
	r.setValid()
	return r
}

// readsFinalLines are the invariants judged, in whole or in part, by the
// final state. The others read operations and traces only; linearizability
// uses the final messages table only to bind operations of unknown outcome,
// and without it treats them as wildcards, which is sound.
var readsFinalLines = map[string]bool{
	NameSequenceUniqueness: true, NameNoZeroSequence: true, NameCounterIsLastAllocated: true,
	NameSequenceMonotonicity: true, NameCounterLowerBound: true, NameIdempotencyGuarantee: true,
	NameIdempotencySeqConsist: true, NameAckImpliesPersistence: true, NameGapIsAllocation: true,
	NameGapless: true, NameSyncCompleteness: true, NameEventCompleteness: true,
	NameCatchUpCompleteness: true, NameEventOrder: true, // the messages table; the events
	NameFailHasNoEffect: true, NameNoPhantomMessages: true,
}

// cutShortNote begins the detail of every invariant a cut-short history
// could not judge.
const cutShortNote = "the final state was cut short (the header promises an end line and the file has none)"

// cutShortNoteOf says why h's final lines prove nothing, "" when they do:
// its promised end line is missing, or a table holds another count of
// lines than its table_read line promised.
func cutShortNoteOf(h *history.History) string {
	if h.CutShort() {
		return cutShortNote
	}
	if short := h.ShortTables(); len(short) > 0 {
		t := short[0]
		return fmt.Sprintf("the final state was cut short (the table_read line %d promises %d final %s lines and the file holds %d)", t.Line, t.Lines, t.Table, t.Found)
	}
	return ""
}

// cutShort adjusts res, judged without the final lines of a history that
// was cut short. An invariant that reads final lines is unknown: a table
// cut halfway proves nothing, and one not read back at all would have made
// it fail. A violation found without them stands, since the operations
// alone prove it. Invariants that read only operations are as judged.
// Results the contract decides (not applicable under it, unknown for a
// value HISTORY.md does not define) are not passed here.
func cutShort(res Result, note string) Result {
	switch {
	case res.Name == NameLinearizability && res.Status != statusNA:
		res.Detail += "; judged without the final messages table, which was cut short"
	case !readsFinalLines[res.Name]:
	case res.Status == Fail:
		res.Detail += "; " + note + ": this violation is in the operations alone"
	default:
		res.Status = Unknown
		res.Detail = note + "; over the operations alone: " + res.Detail
		res.Lines = []int{}
	}
	return res
}

// runAll runs tasks on GOMAXPROCS goroutines.
func runAll(tasks []func()) {
	forEach(runtime.GOMAXPROCS(0), len(tasks), func(i int) { tasks[i]() })
}

// resolveContract fills in HISTORY.md's defaults; opt overrides the header
// field by field. stated reports whether the events contract was given.
func resolveContract(header history.Contract, opt *history.Contract, hasEvents bool) (c history.Contract, stated bool) {
	c = header
	if opt != nil {
		if opt.Gaps != "" {
			c.Gaps = opt.Gaps
		}
		if opt.KeyReuse != "" {
			c.KeyReuse = opt.KeyReuse
		}
		if opt.Events != "" {
			c.Events = opt.Events
		}
		if opt.CatchUp != "" {
			c.CatchUp = opt.CatchUp
		}
		if opt.EventOrder != "" {
			c.EventOrder = opt.EventOrder
		}
		if opt.KeyScope != "" {
			c.KeyScope = opt.KeyScope
		}
	}
	if c.KeyScope == "" {
		c.KeyScope = history.KeyScopeChat
	}
	if c.CatchUp == "" {
		c.CatchUp = history.CatchUpCursor // judged only with reader syncs
	}
	if c.EventOrder == "" {
		c.EventOrder = history.EventOrderNone
	}
	if c.Gaps == "" {
		c.Gaps = history.GapsAllowed
	}
	if c.KeyReuse == "" {
		c.KeyReuse = history.KeyReuseReturnOriginal
	}
	stated = c.Events != ""
	if !stated {
		c.Events = history.EventsNone
		if hasEvents {
			c.Events = history.EventsAtLeastOnce
		}
	}
	return c, stated
}

// contractProblem describes invalid contract values the model depends on.
func contractProblem(c history.Contract) string {
	switch {
	case c.Gaps != history.GapsAllowed && c.Gaps != history.GapsForbidden:
		return fmt.Sprintf("gaps %q is neither %q nor %q", c.Gaps, history.GapsAllowed, history.GapsForbidden)
	case c.KeyReuse != history.KeyReuseReturnOriginal && c.KeyReuse != history.KeyReuseReject:
		return fmt.Sprintf("key_reuse %q is neither %q nor %q", c.KeyReuse, history.KeyReuseReturnOriginal, history.KeyReuseReject)
	case c.KeyScope != history.KeyScopeChat && c.KeyScope != history.KeyScopeClient:
		return fmt.Sprintf("key_scope %q is neither %q nor %q", c.KeyScope, history.KeyScopeChat, history.KeyScopeClient)
	}
	return ""
}

func badContract(name, field, value string) Result {
	return Result{Name: name, Status: Unknown, Lines: []int{},
		Detail: fmt.Sprintf("contract %s %q is not a value HISTORY.md defines: cannot tell whether this invariant applies", field, value)}
}

// stats adds to the operations' counts (opStats) what the invariants
// found.
func (x *index) stats(s Stats, gs gapStats, late, dups int) Stats {
	s.Chats, s.Allocations, s.Messages = len(x.chatNames), x.allocs.len(), len(x.msgs)
	s.Gaps, s.GapCauses = int(min(gs.gaps, 1<<62)), maps.Clone(gs.causes)
	s.LateCommits, s.DuplicateEvents = late, dups
	if s.GapCauses == nil {
		s.GapCauses = map[string]int{}
	}
	if gs.allocated > 0 {
		s.GapRate = float64(gs.gaps) / float64(gs.allocated)
	}
	return s
}

// opStats counts the operations by kind and outcome.
func (x *index) opStats() Stats {
	s := Stats{Operations: x.ops.len(), ErrorCodes: map[string]int{}}
	for i := range x.ops.count() {
		o := int32(i)
		if x.ops.at(i).fn == fnPersist && x.ops.at(i).status == stOK {
			s.MaxAckedSeq = max(s.MaxAckedSeq, x.ackSeq(o))
		}
		if x.ops.at(i).fn == fnPersist {
			s.Persists++
		} else {
			s.Syncs++
		}
		switch x.ops.at(i).status {
		case stOK:
			s.OK++
			if x.isDedup(o) {
				s.Dedup++
			}
		case stFail:
			s.Fail++
			s.ErrorCodes[x.errCode(o)]++
		case stInfo:
			s.Info++
			s.ErrorCodes[x.errCode(o)]++
		case stOpen:
			s.Info++
			s.Unfinished++
		}
	}
	return s
}

// intervalGaps counts, per interval of the history's clock, the traced
// allocations and those whose sequence no final message holds on a chat
// whose counter survived.
//
// Each chat's allocations and messages are both sorted by sequence, so one
// merge tells which sequences have a message: a binary search per
// allocation made every probe a cache miss after a long run.
func (x *index) intervalGaps(every time.Duration) (allocs, gaps []int64) {
	interval := func(end int64) int {
		k := int(max(end, 0) / int64(every))
		for len(allocs) <= k {
			allocs, gaps = append(allocs, 0), append(gaps, 0)
		}
		return k
	}
	for a := range x.allocs.count() {
		allocs[interval(x.allocEnd(a))]++
	}
	for c := range int32(len(x.chatNames)) {
		if fi, _ := x.counterOf(c); fi < 0 {
			continue
		}
		mlo, mhi := span(x.msgSpan, c)
		alo, ahi := span(x.allocSpan, c)
		ms, i := x.msgs[mlo:mhi], 0
		for _, a := range x.allocBySeq[alo:ahi] {
			seq := x.allocSeq(a)
			for i < len(ms) && x.fin.at(ms[i]).Seq < seq {
				i++
			}
			if i == len(ms) || x.fin.at(ms[i]).Seq != seq {
				gaps[interval(x.allocEnd(a))]++
			}
		}
	}
	return allocs, gaps
}
