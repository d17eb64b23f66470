package online

import (
	"math"
	"slices"

	"github.com/chatseq/chatseq/checker/internal/columns"
	"github.com/chatseq/chatseq/checker/internal/store"
	"github.com/chatseq/chatseq/history"
)

// onlineAcked is, per chat, the first ack of each sequence: its message
// id's hash (sequence_uniqueness) and its line, which tells a sync invoked
// later it must return it (sync_completeness: the file is in time order,
// so the acks done before the sync's invoke are the lines before it, but
// for those of its time, which Checker.runStart excludes). Sequences are
// dense from 1 in a chat, so they index blocks of columns (12 bytes a
// sequence, no padding, and 16 for what created its message, which a
// push is compared with); one far above the others (a corrupt or hostile
// answer), or more than a block past the highest so far, goes to a list
// sorted by sequence instead: a service whose sequences step by 65536
// (gaps are allowed) made a block and 64 block slots an ack, 16 KB each
// (3 GB in a 30 s run).
//
// With a spill file (Checker.SpillTo) each chat keeps in memory only its
// newest blocks: the older ones go to the file, byte for byte, and are
// read back whole when a line reaches them (an ack or a sync's answer at
// an old sequence), so every rule reads what it would have held.
type onlineAcked struct {
	mids  [][]uint64 // by sequence>>ackShift: blocks of ackBlock; nil: none yet, or spilled
	lines [][]uint32 // the same blocks' lines+1; 0: no ack
	// sent: the same blocks' content, when the first ack created its
	// message (not a replay): what its persist sent (identical_order
	// compares a push with it); zero: not known.
	sent   [][]store.Carried
	n      uint64 // the sequences the blocks cover (dense)
	sparse sparseAcks
	top    uint64 // the highest sequence acked
	// spilled: where each spilled block is (by the mids' blocks; the
	// lines' go with them).
	midSpill, lineSpill, sentSpill columns.BlockSpill
	// free: blocks written to the file, each the next block made of its
	// column. A block made anew for each one spilled was memory the
	// system had to fault in and the cores to fetch cold: the online
	// check's largest share of a run's page faults.
	freeMids  [][]uint64
	freeLines [][]uint32
	freeSent  [][]store.Carried
}

// ackFreeKept is how many spilled blocks of a column a chat keeps for
// its next ones (a block read back and spilled again adds one).
const ackFreeKept = 2

// reused is a block of ackBlock zeros: a spilled one from free, else new.
func reused[T any](free *[][]T) []T {
	if b := columns.TakeFree(free); b != nil {
		b = b[:ackBlock]
		clear(b)
		return b
	}
	return make([]T, ackBlock)
}

// spillReusing spills blocks' block b as columns.SpillFull does, keeping
// at most ackFreeKept of the blocks written out in free.
func spillReusing[T any](s *columns.BlockSpill, blocks [][]T, b int, free *[][]T) {
	columns.SpillFullReusing(s, blocks, b, free)
	if len(*free) > ackFreeKept {
		clear((*free)[ackFreeKept:])
		*free = (*free)[:ackFreeKept]
	}
}

const (
	ackShift = 10
	ackBlock = 1 << ackShift
	// ackKeep is how many full blocks below a chat's newest one stay in
	// memory when spilling.
	ackKeep = 1
)

type onlineSeqAck struct {
	mid  uint64 // the message id's hash
	line int32  // the ack's line
}

// sparseAck is a sequence's first ack kept outside the blocks.
type sparseAck struct {
	seq uint64
	onlineSeqAck
}

// block is block b's columns, read back if spilled; nil if no sequence
// of it was acked (make: one is made then).
func (a *onlineAcked) block(b int, make_ bool) ([]uint64, []uint32) {
	if b >= len(a.mids) {
		return nil, nil
	}
	if a.mids[b] == nil && a.midSpill.IsSpilled(b) {
		columns.SpillLoad(&a.midSpill, a.mids, b, ackBlock)
		columns.SpillLoad(&a.lineSpill, a.lines, b, ackBlock)
		if a.sentSpill.IsSpilled(b) {
			columns.SpillLoad(&a.sentSpill, a.sent, b, ackBlock)
		}
	}
	if a.mids[b] == nil && make_ {
		// Its sent column is made by the first ack that knows what was
		// sent: without receivers, none does, and a column of zeros was a
		// sixth of the bytes the check spilled.
		a.mids[b], a.lines[b] = reused(&a.freeMids), reused(&a.freeLines)
	}
	return a.mids[b], a.lines[b]
}

// sentOf is what created seq's message sent, if known.
func (a *onlineAcked) sentOf(seq uint64) (store.Carried, bool) {
	if seq >= a.n {
		return store.Carried{}, false
	}
	if _, lines := a.block(int(seq>>ackShift), false); lines != nil && a.sent[seq>>ackShift] != nil {
		s := a.sent[seq>>ackShift][seq&(ackBlock-1)]
		return s, s != store.Carried{}
	}
	return store.Carried{}, false
}

// note records an ack of seq at line for message id hash mid; an earlier
// one stays, and is returned (ok) if there was one.
func (a *onlineAcked) note(seq uint64, line int32, mid uint64, spill *columns.SpillFile) (onlineSeqAck, bool) {
	return a.noteSent(seq, line, mid, store.Carried{}, spill)
}

// noteSent is note for an ack whose persist sent sent and created its
// message (zero: not known, or a replay), kept with the sequence's first
// ack (dense sequences only: one kept apart is not compared).
func (a *onlineAcked) noteSent(seq uint64, line int32, mid uint64, sent store.Carried, spill *columns.SpillFile) (onlineSeqAck, bool) {
	top := a.top
	if seq > a.top {
		a.top = seq
	}
	if seq >= a.n {
		if seq > 2*a.n+1<<16 || seq > top+ackBlock {
			if first, ok := a.sparse.get(seq); ok {
				return first, true
			}
			a.sparse.put(sparseAck{seq, onlineSeqAck{mid, line}})
			return onlineSeqAck{}, false
		}
		a.n = seq + 1 + a.n/2
		if spill != nil && !a.midSpill.Active() {
			a.midSpill.Start(spill, ackKeep)
			a.lineSpill.Start(spill, ackKeep)
			a.sentSpill.Start(spill, ackKeep)
		}
		for uint64(len(a.mids))<<ackShift < a.n {
			a.mids, a.lines, a.sent = append(a.mids, nil), append(a.lines, nil), append(a.sent, nil)
		}
		// Acks kept apart that the blocks now cover move into them:
		// a sequence is in one place, the blocks below n or the list.
		a.sparse.takeBelow(a.n, func(s sparseAck) { a.putDense(s.seq, s.onlineSeqAck, store.Carried{}) })
	}
	return a.putDense(seq, onlineSeqAck{mid, line}, sent)
}

// putDense records first at seq, below n, unless an ack is there, which
// it returns (ok).
func (a *onlineAcked) putDense(seq uint64, first onlineSeqAck, sent store.Carried) (onlineSeqAck, bool) {
	b := int(seq >> ackShift)
	if b > 0 && a.mids[b] == nil && !a.midSpill.IsSpilled(b) && a.midSpill.Active() {
		// A block is made as an ack first reaches it (the slices grow
		// ahead of the sequences): the one below it is full, and is
		// spilled once newer ones are.
		spillReusing(&a.midSpill, a.mids, b-1, &a.freeMids)
		spillReusing(&a.lineSpill, a.lines, b-1, &a.freeLines)
		spillReusing(&a.sentSpill, a.sent, b-1, &a.freeSent)
	}
	mids, lines := a.block(b, true)
	i := seq & (ackBlock - 1)
	if l := lines[i]; l != 0 {
		return onlineSeqAck{mids[i], int32(l - 1)}, true
	}
	mids[i], lines[i] = first.mid, uint32(first.line)+1
	if sent != (store.Carried{}) {
		if a.sent[b] == nil {
			a.sent[b] = reused(&a.freeSent)
		}
		a.sent[b][i] = sent
	}
	return onlineSeqAck{}, false
}

// get is the first ack of seq, if any.
func (a *onlineAcked) get(seq uint64) (onlineSeqAck, bool) {
	if seq < a.n {
		mids, lines := a.block(int(seq>>ackShift), false)
		if lines == nil {
			return onlineSeqAck{0, -1}, false
		}
		i := seq & (ackBlock - 1)
		l := lines[i]
		return onlineSeqAck{mids[i], int32(l) - 1}, l != 0
	}
	return a.sparse.get(seq)
}

// synced judges a sync that completed ok as sync_completeness does (its
// answer strictly ascending, above after, within its limit, and holding
// every message of the chat acknowledged before the sync was invoked with
// a sequence above after, up to its last sequence when the page is full):
// all of it is on the operations' lines. Whether the messages it returned
// exist is left to the check after the run, which has the final state.
func (o *Checker) synced(op *openOp, e *history.Event) {
	if o.found[SyncCompleteness] {
		return // only the first violation is reported
	}
	var seqs []uint64
	ids := 0
	if e.Sync != nil {
		seqs = e.Sync.Seqs
		ids = max(len(e.Sync.MessageIDs), len(e.Sync.IDHashes))
	}
	chatName, dl := o.names[op.chat], int(e.Line)
	lines := func() []int { return []int{int(op.line), dl} } // built only for a violation
	if e.Sync != nil {
		switch {
		case ids != len(seqs):
			o.violate(SyncCompleteness, lines(), e.Time, "sync at line %d on chat %q returned %d seqs but %d message_ids", dl, chatName, len(seqs), ids)
			return
		case op.limit > 0 && len(seqs) > int(op.limit):
			o.violate(SyncCompleteness, lines(), e.Time, "sync at line %d on chat %q returned %d messages, above its limit %d", dl, chatName, len(seqs), op.limit)
			return
		}
		for i, s := range seqs {
			if s <= op.after() {
				o.violate(SyncCompleteness, lines(), e.Time, "sync at line %d on chat %q returned seq %d, not above after=%d", dl, chatName, s, op.after())
				return
			}
			if i > 0 && s <= seqs[i-1] {
				o.violate(SyncCompleteness, lines(), e.Time, "sync at line %d on chat %q returned seq %d after %d: not strictly ascending", dl, chatName, s, seqs[i-1])
				return
			}
		}
		if o.syncedAsSent(op, e) {
			return
		}
	}
	acked := &o.acked[op.chat]
	hi := acked.top
	if op.limit > 0 && len(seqs) == int(op.limit) {
		hi = min(hi, seqs[len(seqs)-1]) // a full page answers up to its last sequence
	}
	missed := func(s uint64, a onlineSeqAck) {
		o.violate(SyncCompleteness, []int{int(a.line), int(op.line), dl}, e.Time,
			"sync at line %d on chat %q (after=%d, limit=%d) missed seq %d, acknowledged at line %d before the sync was invoked",
			dl, chatName, op.after(), op.limit, s, a.line)
	}
	if o.disordered {
		return // which acks were done before the invoke is no longer known
	}
	// Acks are in the file in time order: those done before the invoke
	// are the lines before the first of its time (op.before()).
	j := 0
	// From after+1, unless after is 2^64-1: nothing is above it (after+1
	// would wrap to 0).
	for s := op.after() + 1; op.after() < math.MaxUint64 && s <= hi && s < acked.n; s++ {
		mids, lines := acked.block(int(s>>ackShift), false)
		if lines == nil {
			s |= ackBlock - 1 // no ack in this block: on to the next
			continue
		}
		l := lines[s&(ackBlock-1)]
		if l == 0 || int64(l)-1 >= int64(op.before()) {
			continue
		}
		a := onlineSeqAck{mids[s&(ackBlock-1)], int32(l) - 1}
		for j < len(seqs) && seqs[j] < s {
			j++
		}
		if j == len(seqs) || seqs[j] != s {
			missed(s, a)
			return
		}
	}
	acked.sparse.from(op.after(), func(a sparseAck) bool {
		if a.seq > hi {
			return false
		}
		if a.seq > op.after() && a.line < op.before() {
			if _, in := slices.BinarySearch(seqs, a.seq); !in {
				missed(a.seq, a.onlineSeqAck)
				return false
			}
		}
		return true
	})
}
