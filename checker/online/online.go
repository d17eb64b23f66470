// Package online judges a history while it is written, line by line in
// file order: the rules two operations alone break (sequence_uniqueness,
// sequence_monotonic, idempotency_guarantee, and sync_completeness's at a
// sync's completion, identical_order's and push_authorization's at a
// push, delivery_state_consistency's at a delivery ack), so that a run
// can stop at
// its first violation (bench --fail-fast). Package checker re-exports it
// (checker.Online, checker.NewOnline) and judges the whole history after
// the run; a violation found here is one that check reports too.
package online

import (
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/chatseq/chatseq/checker/internal/columns"
	"github.com/chatseq/chatseq/checker/internal/store"
	"github.com/chatseq/chatseq/history"
)

// The invariants the online check judges, by the names HISTORY.md gives
// them (package checker's NameSequenceUniqueness and the others; its
// tests hold them equal).
const (
	SequenceUniqueness   = "sequence_uniqueness"
	SequenceMonotonic    = "sequence_monotonic"
	IdempotencyGuarantee = "idempotency_guarantee"
	SyncCompleteness     = "sync_completeness"
)

// Invariants are the invariants the online check judges while the run
// goes: those a pair of operations proves broken the moment the second
// completes. Every other invariant is judged after the run only
// (checker/INVARIANTS.md, "The online check", says why for each).
var Invariants = []string{SequenceUniqueness, SequenceMonotonic, IdempotencyGuarantee, SyncCompleteness, IdenticalOrder, PushAuthorization, DeliveryStateConsistency, SendAuthorization, ReadAuthorization}

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

// Checker judges, line by line in file order, the rules of Invariants
// that two operations alone break, mirroring how the Log
// pairs invokes with completions: a violation it reports is one the
// offline check, reading the same file, reports too (it may miss some the
// offline check finds: a message id is compared by hash, and in a file
// out of time order monotonicity only against the highest new sequence
// acknowledged before, with no replay judged). It is a
// history.Sink; Checker.Event is called from one goroutine (the tap's), as
// are BatchDone, CloseSpill and Violations until the lines end; the rest
// from any.
type Checker struct {
	chats map[string]int32
	names []string // by chat number
	open  openOps  // by process: its outstanding operation
	// keys: per chat, per key, the first ok answer's sequence (keys.go).
	// A key is its sender and text under key_scope client (and without a
	// header: one key under either scope), its text under chat
	// (keyByText), kept as two hashes (no string to hold or scan).
	// keyFirst holds the rare first answers that were not their
	// sequence's first ack.
	keys     []keyTable
	keyFirst map[keyFP]ackSeen
	// keyed: the ok answers whose keys are yet to be looked up
	// (keybatch.go).
	keyed keyBatch
	// madeBy: per key that timed out, the earliest of its persists that
	// did, which may have made its message (replay.go): a key answered
	// ok since is dropped now and then.
	madeBy     map[keyFP]madeFrom
	madeByKept int // its size when last pruned
	// keyByText: under key_scope chat a key is its chat and text, whoever
	// sent it, and its hashes are taken with noSender's.
	keyByText bool
	noSender  senderHash
	// keyMerging is the space the tables' flushes merge in.
	keyMerging keyMerging
	// byProcess caches each process's last chat and sender (a writer
	// sends to a few chats as one sender): a map look-up and two hashes
	// of the sender saved on most invokes.
	byProcess [processCache]processSeen
	// newest: per chat, the new (not a replay's) ack of the highest
	// sequence, for monotonicity.
	newest []chatNewest
	// acked: per chat, each sequence's earliest (first) ack, with its
	// message id's hash (sequence_uniqueness; sync.go).
	acked []onlineAcked
	// recentIDs: the newest acks' message ids by chat, for one id
	// acknowledged at two sequences (recentids.go).
	recentIDs recentIDs
	// The file's order so far: the last event line and its time, and the
	// first event line of that time (a sync invoked now counts the acks
	// before it); disordered once a line went back in time or in number
	// (not a recorder's file), which turns sync_completeness's
	// acked-before-invoke rule off online.
	lastLine, runStart int
	lastTime           int64
	disordered         bool
	// syncsSay: a sync answer said what its messages carried
	// (syncedAsSent): from then on each persist's is kept with its ack.
	syncsSay bool
	// claims: what pushes and syncs said of messages not yet acked
	// (claims.go).
	claims pendingClaims
	// pushes: identical_order's, push_authorization's and
	// delivery_state_consistency's (delivery.go).
	pushes pushes
	// users: the users join and connect lines named, numbered (member).
	users map[string]int32
	// sendAuth: send_authorization's (sendauth.go).
	sendAuth sendAuth
	// readAuth: read_authorization's (readauth.go).
	readAuth readAuth
	// header: the history's header was read (Header), and its
	// initial_counter.
	header         bool
	initialCounter uint64

	// spill, unless nil, takes the first acks of sequences the run has
	// moved past (onlineAcked, SpillTo).
	spill *columns.SpillFile

	mu         sync.Mutex
	violations []Violation // the first of each invariant, in the order found
	found      map[string]bool
	notify     func(Violation)
}

// chatNewest is a chat's new ack of the highest sequence, and what it was
// before the time of the chat's last new ack: an invoke at that time
// compares with the acks done before it only (equal times are not
// before), which the first alone missed.
type chatNewest struct {
	all    ackSeen
	before ackSeen // of the acks done before at
	at     int64   // the latest time a new ack was done
}

// doneBefore is the chat's new ack of the highest sequence done before t,
// nil if none is known: exact in a file in time order, where every ack so
// far was done no later than at.
func (n *chatNewest) doneBefore(t int64) *ackSeen {
	switch {
	case n.at < t && n.all.set:
		return &n.all
	case n.at == t && n.before.set:
		return &n.before
	case n.at > t && n.all.set && n.all.done < t: // out of order
		return &n.all
	}
	return nil
}

// noted takes a new ack.
func (n *chatNewest) noted(a *ackSeen) {
	if a.done > n.at {
		n.before.setTo(&n.all)
		n.at = a.done
	}
	if !n.all.set || a.seq > n.all.seq {
		n.all.setTo(a)
	}
}

type chatSeq struct {
	chat int32
	seq  uint64
}

// ackSeen is an ok persist as the rules compare it.
type ackSeen struct {
	seq      uint64
	mid      uint64 // the message id's hash
	done     int64  // completion time
	invLine  int32
	doneLine int32
	set      bool
}

// setTo makes s a copy of a, field by field: copied whole, a's fields just
// stored one by one were read back by 16-byte loads that waited for the
// cold stores ahead of them (a failed store forwarding).
func (s *ackSeen) setTo(a *ackSeen) {
	s.seq, s.mid, s.done, s.invLine, s.doneLine, s.set = a.seq, a.mid, a.done, a.invLine, a.doneLine, a.set
}

// processCache is how many processes byProcess remembers (by number,
// modulo): more than a run's writers.
const processCache = 64

// processSeen is a process's last chat (its number) and sender (its two
// hashes, keys.go).
type processSeen struct {
	chatName   string
	chat       int32
	senderName string
	sender     senderHash
	// senderUser is the sender's user number (userOf), if it has one
	// (-1: not looked up since the sender changed, or none then).
	senderUser int32
}

// chatOf is chat(name), mostly from the process's cache.
func (o *Checker) chatOf(process int, name string) int32 {
	c := &o.byProcess[uint(process)%processCache]
	if c.chatName != name || c.chatName == "" {
		c.chat = o.chat(name)
		c.chatName = o.names[c.chat]
	}
	return c.chat
}

// senderOf is the sender's hashes, mostly from the process's cache.
func (o *Checker) senderOf(process int, name string) senderHash {
	c := &o.byProcess[uint(process)%processCache]
	if c.senderName != name || c.senderName == "" {
		c.senderName, c.sender, c.senderUser = strings.Clone(name), hashSender(name), -1
	}
	return c.sender
}

// senderUser is userOf(name) for process's sender name (senderOf called
// first), mostly from the process's cache: a user once numbered keeps its
// number, and one not yet numbered is looked up again.
func (o *Checker) senderUser(process int, name string) int32 {
	c := &o.byProcess[uint(process)%processCache]
	if c.senderName != name || c.senderUser < 0 || name == "" {
		id := o.userOf(name)
		if c.senderName == name {
			c.senderUser = id
		}
		return id
	}
	return c.senderUser
}

// openOp is an outstanding invoke, in 72 bytes: one is written and read
// back for every operation, and at 136 bytes its copies were a third of
// the online check's own time a line in a run.
type openOp struct {
	call int64
	// key and key2 are a persist's keyHash(sender, key) and
	// keyHash2(sender, key); a sync's after is key.
	key, key2 uint64
	// newestSeq is, for a persist, the seq of the chat's newest ack done
	// before the call (if hasNewest), acked at line newestLine.
	newestSeq uint64
	sent      store.Carried // what a persist sent: its key, sender and payload_hash (StringHash)
	line      int32
	chat      int32
	// newestLine is, for a sync, its before: the acks on lines before it
	// were done before its call.
	newestLine int32
	limit      int32 // a sync's, within int32
	persist    bool
	keyed      bool // a persist with a key
	hasNewest  bool
	set        bool // openOps: the slot holds an operation
}

// after is a sync's after.
func (op *openOp) after() uint64 { return op.key }

// before is a sync's before.
func (op *openOp) before() int32 { return op.newestLine }

// New starts an online check; notify, if not nil, is called with each
// invariant's first violation as it is found (from the goroutine feeding
// the lines).
func New(notify func(Violation)) *Checker {
	return &Checker{chats: map[string]int32{}, keyFirst: map[keyFP]ackSeen{}, found: map[string]bool{}, notify: notify}
}

// Header takes the history's header before its lines
// (history.HeaderSink): delivery_state_consistency's acks are judged
// against its initial_counter, and only once it was read.
func (o *Checker) Header(h *history.Header) {
	o.header, o.initialCounter = true, h.InitialCounter()
	o.keyByText = h.Contract.WithDefaults(false).KeyScope == history.KeyScopeChat
	o.sendAuth.checked = h.Contract.WithDefaults(false).SendMembership == history.SendMembershipChecked
	o.readAuth.checked = h.Contract.WithDefaults(false).ReadMembership == history.ReadMembershipChecked
	o.noSender = hashSender("")
}

// SpillTo makes the checker keep in memory only each chat's newest first
// acks by sequence, and the others in a file in dir (os.TempDir if empty),
// removed as soon as it is made (columns.SpillFile), read back when a line
// reaches them. Call it before the first line; CloseSpill when the lines
// are done.
func (o *Checker) SpillTo(dir string) error {
	// Cached: its key runs are read back, to be merged, while it writes.
	f, err := columns.NewCachedSpillFile(dir)
	if err != nil {
		return err
	}
	o.spill = f
	return nil
}

// Spilled is how many bytes went to the spill file.
func (o *Checker) Spilled() int64 {
	if o.spill == nil {
		return 0
	}
	return o.spill.Written
}

// CloseSpill closes the spill file, once no more lines will come; the
// error is a read back that failed, after which what the checker found
// cannot be trusted (what failed to read reads as no ack).
func (o *Checker) CloseSpill() error {
	o.settleWaiting() // the keys may read it
	if o.spill == nil {
		return nil
	}
	err := o.spill.Err()
	o.spill.Close()
	return err
}

// Violations are the first violation of each invariant found so far,
// the keys and ids waiting judged first (keybatch.go, recentids.go): call it from the goroutine
// that hands the lines, or once they are all handed.
func (o *Checker) Violations() []Violation {
	o.settleWaiting()
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]Violation(nil), o.violations...)
}

func (o *Checker) chat(name string) int32 {
	if id, ok := o.chats[name]; ok {
		return id
	}
	id := int32(len(o.chats))
	name = strings.Clone(name)
	o.chats[name] = id
	o.names = append(o.names, name)
	o.newest = append(o.newest, chatNewest{at: math.MinInt64})
	o.acked = append(o.acked, onlineAcked{})
	o.keys = append(o.keys, keyTable{merging: &o.keyMerging})
	return id
}

// Event takes an operation line in file order (Log.Event's pairing).
func (o *Checker) Event(e *history.Event) {
	switch {
	case o.lastLine == 0 && !o.disordered || e.Time > o.lastTime:
		o.runStart = e.Line
	case e.Time < o.lastTime:
		o.disordered = true
	}
	if e.Line <= o.lastLine || e.Line <= 0 || e.Line > 1<<31-2 {
		o.disordered = true
	}
	o.lastLine, o.lastTime = e.Line, e.Time
	switch e.Kind {
	case history.KindInvoke:
		if e.F != history.FPersist && e.F != history.FSync {
			return // the Log ignores it, and keeps what was outstanding
		}
		// Written in its slot field by field: built on the stack and
		// copied, its 16-byte loads of fields just stored as 8 waited for
		// the Log's stores to cold memory ahead of them (a failed store
		// forwarding), 90 ns a persist.
		chat := o.chatOf(e.Process, e.Chat)
		op := o.open.slot(e.Process)
		op.call, op.line, op.chat, op.persist = e.Time, int32(e.Line), chat, e.F == history.FPersist
		op.keyed, op.hasNewest, op.key, op.key2, op.sent = false, false, 0, 0, store.Carried{}
		if !op.persist {
			op.key, op.newestLine = e.After, int32(o.runStart)
			op.limit = int32(min(max(e.Limit, math.MinInt32), math.MaxInt32))
			if o.sendAuth.recorded != nil {
				o.syncInvoked(e.Process, op, e.Sender)
			}
		} else {
			sh := o.senderOf(e.Process, e.Sender)
			key := store.StringHash(e.Key)
			if e.Key != "" {
				kh := sh
				if o.keyByText {
					kh = o.noSender
				}
				op.keyed, op.key, op.key2 = true, kh.keyHash(key), kh.keyHash2(e.Key)
			}
			if o.pushes.devices != nil || o.syncsSay {
				// Receiver lines came, or sync answers that say what
				// their messages carried: they may be compared with it.
				op.sent = store.Carried{Payload: store.StringHash(e.PayloadHash), Sender: sh.h1, Key: key}
			}
			if n := o.newest[chat].doneBefore(e.Time); n != nil {
				op.hasNewest, op.newestSeq, op.newestLine = true, n.seq, n.doneLine
			}
			if o.sendAuth.recorded != nil {
				o.sendInvoked(e.Process, op, e.Sender)
			}
		}
		o.open.filled(e.Process)
	case history.KindOK, history.KindFail, history.KindInfo:
		op, ok := o.open.take(e.Process)
		if !ok {
			return
		}
		if op.persist && o.sendAuth.recorded != nil {
			o.sendAnswered(e.Process, op, e)
		}
		if !op.persist && o.readAuth.outsiders != nil {
			o.syncAnswered(e.Process, op, e)
		}
		switch {
		case e.Kind == history.KindInfo && op.persist:
			o.timedOut(op)
		case e.Kind != history.KindOK:
		case op.persist:
			o.ack(op, e)
		default:
			o.synced(op, e)
		}
	}
}

// Final lines prove nothing online: the final state is read after the run.
func (o *Checker) Final(*history.Final) {}

// ack judges an ok persist against the acks before it.
func (o *Checker) ack(op *openOp, e *history.Event) {
	a := ackSeen{seq: e.Seq, mid: store.StringHash(e.MessageID), done: e.Time, invLine: op.line, doneLine: int32(e.Line), set: true}
	chatName := o.names[op.chat]
	sent := op.sent // it created its message, unless a replay
	if e.Dedup {
		sent = store.Carried{}
	}
	first, earlier := o.acked[op.chat].noteSent(e.Seq, int32(e.Line), a.mid, sent, o.spill)
	if earlier && first.mid != a.mid {
		// An id's violation waiting in its batch came before this one.
		o.settleIDs()
		o.violate(SequenceUniqueness, []int{int(first.line), int(a.doneLine)}, e.Time,
			"chat %q seq %d was acknowledged for two messages (lines %d and %d), the second %q", chatName, e.Seq, first.line, a.doneLine, e.MessageID)
	}
	if !earlier {
		if o.recentIDs.add(op.chat, a.mid, e.Seq, a.doneLine, e.Time) {
			o.settleIDs()
		}
	}
	if !earlier && o.claims.n > 0 && sent != (store.Carried{}) {
		o.judgeClaims(op.chat, e.Seq, a.mid, sent, a.doneLine, e.Time)
	}
	if op.keyed {
		if e.Dedup {
			o.replayed(op, e)
		}
		o.keyed.add(op.key, op.key2, &a, op.chat, earlier)
		if len(o.keyed.waiting) >= keyBatchMax {
			o.settleKeys()
		}
	}
	if e.Dedup {
		return
	}
	// Real-time order: an ack done before this persist was invoked must
	// have a lower sequence (sequence_monotonic's equal pairs too).
	before := ackSeen{seq: op.newestSeq, doneLine: op.newestLine, set: op.hasNewest}
	if n := o.newest[op.chat].all; n.set && n.done < op.call && (!before.set || n.seq > before.seq) {
		before = n
	}
	if before.set && before.seq >= a.seq {
		o.violate(SequenceMonotonic, []int{int(before.doneLine), int(op.line), int(a.doneLine)}, e.Time,
			"chat %q: seq %d acked at line %d before the persist at line %d was invoked, which got seq %d as a new message (line %d)",
			chatName, before.seq, before.doneLine, op.line, a.seq, a.doneLine)
	}
	o.newest[op.chat].noted(&a)
}

// firstAnswer is a key's first ok answer (its slot in the chat's keys):
// the chat's first ack at the slot's sequence, or keyFirst's if marked.
func (o *Checker) firstAnswer(chat int32, slot *keySlot, fp keyFP) ackSeen {
	if slot.k2&keyMarked != 0 {
		return o.keyFirst[fp]
	}
	f, _ := o.acked[chat].get(slot.seq)
	return ackSeen{seq: slot.seq, mid: f.mid, doneLine: f.line, set: true}
}

func (o *Checker) violate(name string, lines []int, at int64, format string, args ...any) {
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
