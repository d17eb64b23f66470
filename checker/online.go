package checker

import (
	"fmt"
	"strings"
	"sync"

	"github.com/chatseq/chatseq/history"
)

// OnlineInvariants are the invariants the online check judges while the
// run goes: those a pair of operations proves broken the moment the
// second completes. Every other invariant is judged after the run only
// (INVARIANTS.md, "Online check", says why for each).
var OnlineInvariants = []string{NameSequenceUniqueness, NameSequenceMonotonic, NameIdempotencyGuarantee}

// Violation is an invariant the online check found broken while the
// history was being written: the first counterexample, by the lines of
// the file the offline check reads.
type Violation struct {
	Invariant string `json:"invariant"`
	Detail    string `json:"detail"`
	// Lines is the counterexample; the last is the completion of the
	// operation that proved it.
	Lines []int `json:"lines"`
	// Time is that completion's time in the history (ns since the epoch).
	Time int64 `json:"time"`
}

// Online judges, line by line in file order, the rules of
// OnlineInvariants that two operations alone break, mirroring how the Log
// pairs invokes with completions: a violation it reports is one the
// offline check, reading the same file, reports too (it may miss some the
// offline check finds: a message id is compared by hash, and monotonicity
// only against the highest new sequence acknowledged before). It is a
// history.Sink; Online.Event is called from one goroutine (the tap's), the
// rest from any.
type Online struct {
	chats map[string]int32
	names []string         // by chat number
	open  map[int]onlineOp // by process: its outstanding operation
	// seqs: per chat and sequence, the first ack's message id hash.
	seqs map[onlineSeq]onlineAck
	// keys: per (chat, sender, key), the first ok answer. A key is one
	// key under either key_scope when chat, sender and text are equal.
	keys map[onlineKey]onlineAck
	// newest: per chat, the new (not a replay's) ack of the highest
	// sequence, for monotonicity.
	newest []onlineAck

	mu         sync.Mutex
	violations []Violation // the first of each invariant, in the order found
	found      map[string]bool
	notify     func(Violation)
}

type onlineSeq struct {
	chat int32
	seq  uint64
}

type onlineKey struct {
	chat        int32
	sender, key string
}

// onlineAck is an ok persist as the rules compare it.
type onlineAck struct {
	seq      uint64
	mid      uint64 // the message id's hash
	done     int64  // completion time
	invLine  int32
	doneLine int32
	set      bool
}

// onlineOp is an outstanding invoke.
type onlineOp struct {
	persist  bool
	chat     int32
	call     int64
	line     int32
	key      string // "" keyless (or a sync)
	sender   string
	newestAt onlineAck // the chat's newest ack done before the call, if any
}

// NewOnline starts an online check; notify, if not nil, is called with
// each invariant's first violation as it is found (from the goroutine
// feeding the lines).
func NewOnline(notify func(Violation)) *Online {
	return &Online{chats: map[string]int32{}, open: map[int]onlineOp{}, seqs: map[onlineSeq]onlineAck{},
		keys: map[onlineKey]onlineAck{}, found: map[string]bool{}, notify: notify}
}

// Violations are the first violation of each invariant found so far.
func (o *Online) Violations() []Violation {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]Violation(nil), o.violations...)
}

func (o *Online) chat(name string) int32 {
	if id, ok := o.chats[name]; ok {
		return id
	}
	id := int32(len(o.chats))
	name = strings.Clone(name)
	o.chats[name] = id
	o.names = append(o.names, name)
	o.newest = append(o.newest, onlineAck{})
	return id
}

// Event takes an operation line in file order (Log.Event's pairing).
func (o *Online) Event(e *history.Event) {
	switch e.Kind {
	case history.KindInvoke:
		if e.F != history.FPersist && e.F != history.FSync {
			return // the Log ignores it, and keeps what was outstanding
		}
		op := onlineOp{persist: e.F == history.FPersist, chat: o.chat(e.Chat), call: e.Time, line: int32(e.Line)}
		if op.persist && e.Key != "" {
			op.key, op.sender = strings.Clone(e.Key), strings.Clone(e.Sender)
		}
		if n := o.newest[op.chat]; n.set && n.done < e.Time {
			op.newestAt = n
		}
		o.open[e.Process] = op
	case history.KindOK, history.KindFail, history.KindInfo:
		op, ok := o.open[e.Process]
		if !ok {
			return
		}
		delete(o.open, e.Process)
		if e.Kind == history.KindOK && op.persist {
			o.acked(op, e)
		}
	}
}

// Final lines prove nothing online: the final state is read after the run.
func (o *Online) Final(*history.Final) {}

// acked judges an ok persist against the acks before it.
func (o *Online) acked(op onlineOp, e *history.Event) {
	a := onlineAck{seq: e.Seq, mid: stringHash(e.MessageID), done: e.Time, invLine: op.line, doneLine: int32(e.Line), set: true}
	chatName := o.names[op.chat]
	cs := onlineSeq{op.chat, e.Seq}
	if first, ok := o.seqs[cs]; !ok {
		o.seqs[cs] = a
	} else if first.mid != a.mid {
		o.violate(NameSequenceUniqueness, []int{int(first.doneLine), int(a.doneLine)}, e.Time,
			"chat %q seq %d was acknowledged for two messages (lines %d and %d), the second %q", chatName, e.Seq, first.doneLine, a.doneLine, e.MessageID)
	}
	if op.key != "" {
		k := onlineKey{op.chat, op.sender, op.key}
		if first, ok := o.keys[k]; !ok {
			o.keys[k] = a
		} else if first.seq != a.seq || first.mid != a.mid {
			o.violate(NameIdempotencyGuarantee, []int{int(first.doneLine), int(a.doneLine)}, e.Time,
				"chat %q key %q answered seq %d (line %d) and seq %d %q (line %d)", chatName, op.key, first.seq, first.doneLine, a.seq, e.MessageID, a.doneLine)
		}
	}
	if e.Dedup {
		return
	}
	// Real-time order: an ack done before this persist was invoked must
	// have a lower sequence (sequence_monotonic's equal pairs too).
	before := op.newestAt
	if n := o.newest[op.chat]; n.set && n.done < op.call && (!before.set || n.seq > before.seq) {
		before = n
	}
	if before.set && before.seq >= a.seq {
		o.violate(NameSequenceMonotonic, []int{int(before.doneLine), int(op.line), int(a.doneLine)}, e.Time,
			"chat %q: seq %d acked at line %d before the persist at line %d was invoked, which got seq %d as a new message (line %d)",
			chatName, before.seq, before.doneLine, op.line, a.seq, a.doneLine)
	}
	if n := o.newest[op.chat]; !n.set || a.seq > n.seq {
		o.newest[op.chat] = a
	}
}

func (o *Online) violate(name string, lines []int, at int64, format string, args ...any) {
	o.mu.Lock()
	if o.found[name] {
		o.mu.Unlock()
		return
	}
	o.found[name] = true
	v := Violation{Invariant: name, Detail: fmt.Sprintf(format, args...), Lines: lines, Time: at}
	o.violations = append(o.violations, v)
	o.mu.Unlock()
	if o.notify != nil {
		o.notify(v)
	}
}

// onlineSink hands each line to the Log and, for operations, to the
// online check.
type onlineSink struct {
	*Log
	online *Online
}

func (s onlineSink) Event(e *history.Event) {
	s.Log.Event(e)
	s.online.Event(e)
}
