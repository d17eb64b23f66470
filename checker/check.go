package checker

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/chatseq/chatseq/checker/internal/columns"
	"github.com/chatseq/chatseq/checker/internal/store"
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
	return (&Log{store.LogOf(h)}).check(h, opt, began)
}

// CheckFile reads the history at path straight into a Log, never holding
// it whole, and judges it as Check does. The History returned holds the
// header and the reader's warnings; a file that cannot be read is an error
// (its *history.ParseError names the line).
func CheckFile(path string, opt Options) (Report, *history.History, error) {
	began := time.Now()
	l := NewLog()
	read := timings.Phase("read: the file into the log")
	h, err := history.ScanFile(path, l)
	read()
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
	l.Fin.Each(func(f *store.FinalRecord) { hasEvents = hasEvents || f.Table == store.TableEvents })
	note := cutShortNoteOf(h)
	cut := note != ""
	finals := l.Fin.Len()
	tablesRead := h.TablesRead
	if cut {
		l.Fin, tablesRead = columns.Chunked[store.FinalRecord]{}, nil
	}
	l.FinishDelivery(h, cut)
	defer timings.Phase("check: all")()
	// The key scope decides how keys are numbered, before any invariant.
	scope, _ := resolveContract(h.Header.Contract, opt.Contract, hasEvents)
	soleWriter := h.Header.SoleWriter()
	if opt.SoleWriter != nil {
		soleWriter = *opt.SoleWriter
	}
	x := &index{Index: store.BuildIndex(l.Log, h.Header, tablesRead, scope.KeysPerSender(), soleWriter)}
	if cut {
		x.Warn("%s: none of its %d final lines is judged, and every invariant that reads final lines is unknown unless the operations alone violate it",
			note, finals)
	}
	return checkIndex(x, h, opt, began, hasEvents, note)
}

// checkIndex judges x; cutNote, unless empty, says why its final lines
// were dropped (cutShortNoteOf).
func checkIndex(x *index, h *history.History, opt Options, began time.Time, hasEvents bool, cutNote string) Report {
	built := len(x.Warnings) // later warnings come from concurrent checkers
	con, stated := resolveContract(h.Header.Contract, opt.Contract, hasEvents)
	r := Report{Contract: con, Invariants: []Result{}, NotApplicable: []NotApplicable{}}
	j := &judging{x: x, con: con, stated: stated, opt: opt, claims: claimsOf(h.Header, x), overHTTP: recordedOverHTTP(h.Header.Target)}

	// Statistics that are no invariant's, counted beside them.
	var ops Stats
	var intervalAllocs, intervalGaps []int64
	extra := []func(){
		func() { ops = x.OpStats() },
		func() {
			if opt.Interval > 0 {
				intervalAllocs, intervalGaps = x.IntervalGaps(opt.Interval)
			}
		},
	}
	done := timings.Phase("invariants")
	results, byContract := judgeAll(j, extra)
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
			x.Warn("--require %q: not an invariant the checker reports; ignored", name)
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
	r.Warnings = make([]string, 0, len(h.Warnings)+len(x.Warnings))
	for _, w := range h.Warnings {
		r.Warnings = append(r.Warnings, fmt.Sprintf("line %d: %s", w.Line, w.Message))
	}
	slices.Sort(x.Warnings[built:])
	r.Warnings = append(r.Warnings, x.Warnings...)
	js := j.stats
	r.Stats = x.stats(ops, js.gaps, js.late, js.dups)
	r.Stats.IntervalAllocations, r.Stats.IntervalGaps = intervalAllocs, intervalGaps
	r.Stats.LinearizabilityChats, r.Stats.LinearizabilityUndecided = js.decided, js.undecided
	r.Stats.CatchUpMissed, r.Stats.EventsOutOfOrder = js.missed, js.outOfOrder
	r.Stats.Delivery = x.DeliveryStats()
	r.Stats.CheckMillis = time.Since(began).Milliseconds()
	r.SetValid()
	return r
}

// cutShortNote begins the detail of every invariant a cut-short history
// could not judge.
const cutShortNote = "the final state was cut short (the header promises an end line and the file has none)"

// cutShortNoteOf says why h's final lines prove nothing, "" when they do:
// its promised end line is missing, or a table holds another count of
// lines than its table_read line promised.
func cutShortNoteOf(h *history.History) string {
	if h.EndLineMissing() {
		return cutShortNote
	}
	if h.CutMidLine > 0 {
		return fmt.Sprintf("the file ends inside line %d (its writer was killed mid-line), so its final state may be cut short", h.CutMidLine)
	}
	if short := h.ShortTables(); len(short) > 0 {
		t := short[0]
		if t.Found > t.Lines {
			return fmt.Sprintf("the final state does not match what was read (the table_read line %d promises %d final %s lines and the file holds %d)", t.Line, t.Lines, t.Table, t.Found)
		}
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
	inv, _ := invariantOf(res.Name)
	switch {
	case inv.reads&bindsFinalMessages != 0 && res.Status != statusNA:
		res.Detail += "; judged without the final tables, which were cut short"
	case inv.reads&finalLines == 0:
	case res.Status == Fail:
		res.Detail += "; " + note + ": this violation is in the operations alone"
	default:
		res.Status = Unknown
		res.Detail = note + "; over the operations alone: " + res.Detail
		res.Lines = []int{}
	}
	return res
}

// resolveContract fills in HISTORY.md's defaults; opt overrides the header
// field by field. stated reports whether the events contract was given
// (its default depends on whether the history holds events).
func resolveContract(header history.Contract, opt *history.Contract, hasEvents bool) (c history.Contract, stated bool) {
	if c = header; opt != nil {
		c = opt.Over(c)
	}
	return c.WithDefaults(hasEvents), c.Events != ""
}

// stats adds to the operations' counts (store.Index.OpStats) what the invariants
// found.
func (x *index) stats(s Stats, gs gapStats, late, dups int) Stats {
	s.Chats, s.Allocations, s.Messages = len(x.ChatNames), x.Allocs.Len(), len(x.Msgs)
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

// claimsOf reads the header's claims (history.ClaimsField); a malformed
// value is a warning and no claims.
func claimsOf(h history.Header, x *index) map[string]string {
	claims, err := history.DecodeClaims(h.Extra[history.ClaimsField])
	if err != nil {
		x.Warn("%v: ignored", err)
	}
	return claims
}
