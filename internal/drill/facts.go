package drill

import (
	"maps"
	"slices"

	"github.com/chatseq/chatseq/history"
)

// op is one operation read back from the history.
type op struct {
	process              int
	f, key               string
	invoke, done         int64 // done is -1 for an operation that never completed
	invokeLine, doneLine int
	kind                 history.Kind // 0 while unfinished
	code                 string
	seq                  uint64
	messageID            string
	dedup                bool
}

// isNewAck is a persist acknowledged as a new message (not a replay).
func (o *op) isNewAck() bool { return o.f == history.FPersist && o.kind == history.KindOK && !o.dedup }

// alloc is one allocate trace.
type alloc struct {
	seq         uint64
	start, time int64
	line        int
	op          int // index in facts.ops of the operation it belongs to, -1 if none
}

// facts is what the drill's history shows, indexed for the expectations.
type facts struct {
	ops    []op
	allocs []alloc
}

func analyse(h *history.History) *facts {
	f := &facts{}
	open := map[int]int{} // process -> its outstanding operation
	for i := range h.Events {
		e := &h.Events[i]
		switch {
		case e.Kind == history.KindInvoke:
			open[e.Process] = len(f.ops)
			f.ops = append(f.ops, op{process: e.Process, f: e.F, key: e.Key, invoke: e.Time, invokeLine: e.Line, done: -1})
		case e.Kind.IsCompletion():
			idx, ok := open[e.Process]
			if !ok {
				continue // the checker reports malformed histories
			}
			delete(open, e.Process)
			o := &f.ops[idx]
			o.done, o.doneLine, o.kind, o.code = e.Time, e.Line, e.Kind, e.Error
			o.seq, o.messageID, o.dedup = e.Seq, e.MessageID, e.Dedup
		case e.Kind == history.KindTrace && e.F == history.FAllocate:
			idx, ok := open[e.Process]
			if !ok {
				idx = -1
			}
			start := e.Time
			if e.HasStart {
				start = e.Start
			}
			f.allocs = append(f.allocs, alloc{seq: e.Seq, start: start, time: e.Time, line: e.Line, op: idx})
		}
	}
	return f
}

// observe fills in what the result reports from the history.
func (r *Result) observe(f *facts) {
	r.facts = f
	tl := r.Timeline
	for i := range f.ops {
		o := &f.ops[i]
		if o.key == stragglerKey && o.isNewAck() {
			r.StragglerSeq = o.seq
		}
		if tl.RecoveryStarted >= 0 && o.isNewAck() && o.done > tl.RecoveryStarted &&
			(r.Timeline.FirstSuccess < 0 || o.done < r.Timeline.FirstSuccess) {
			r.Timeline.FirstSuccess = o.done
		}
	}
	// A sequence allocated before the deletion and again after the
	// recovery is harmless if nothing invoked before the recovery was
	// acknowledged with it (an orphan: allocated, never persisted), and
	// damage otherwise (a persisted sequence handed out twice).
	before := map[uint64]bool{}
	for _, a := range f.allocs {
		if tl.CounterDeleted >= 0 && a.time <= tl.CounterDeleted {
			before[a.seq] = true
		}
	}
	ackedEarlier := map[uint64]bool{}
	for i := range f.ops {
		if o := &f.ops[i]; o.isNewAck() && o.invoke < tl.RecoveryStarted {
			ackedEarlier[o.seq] = true
		}
	}
	reissued, reused := map[uint64]bool{}, map[uint64]bool{}
	for _, a := range f.allocs {
		if tl.RecoveryStarted < 0 || a.start < tl.RecoveryStarted {
			continue
		}
		if r.FirstNewSeq == 0 || a.seq < r.FirstNewSeq {
			r.FirstNewSeq = a.seq
		}
		switch {
		case !before[a.seq]:
		case ackedEarlier[a.seq]:
			reused[a.seq] = true
		default:
			reissued[a.seq] = true
		}
	}
	r.Reissued = sortedKeys(reissued)
	r.ReusedPersisted = sortedKeys(reused)
	r.DuplicateSeqs = f.duplicateAcks()
}

// duplicateAcks lists sequences acknowledged for two different messages:
// the damage the runbook exists to prevent, seen by the clients.
func (f *facts) duplicateAcks() []uint64 {
	first := map[uint64]string{}
	dup := map[uint64]bool{}
	for i := range f.ops {
		o := &f.ops[i]
		if o.f != history.FPersist || o.kind != history.KindOK {
			continue
		}
		if id, ok := first[o.seq]; ok && id != o.messageID {
			dup[o.seq] = true
		} else if !ok {
			first[o.seq] = o.messageID
		}
	}
	return sortedKeys(dup)
}

// sortedKeys is never nil, so JSON shows [] rather than null.
func sortedKeys(m map[uint64]bool) []uint64 {
	return append([]uint64{}, slices.Sorted(maps.Keys(m))...)
}

// linesOfSeqs is every history line about the given sequences: their
// allocate traces and the completions acknowledging them.
func (f *facts) linesOfSeqs(seqs []uint64) map[int]bool {
	want := map[uint64]bool{}
	for _, s := range seqs {
		want[s] = true
	}
	lines := map[int]bool{}
	for _, a := range f.allocs {
		if want[a.seq] {
			lines[a.line] = true
		}
	}
	for i := range f.ops {
		if o := &f.ops[i]; o.kind == history.KindOK && want[o.seq] {
			lines[o.doneLine] = true
		}
	}
	return lines
}
