package store

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/chatseq/chatseq/checker/internal/columns"
	"github.com/chatseq/chatseq/history"
)

// Log takes a history's lines one at a time and keeps only what the
// invariants read, in fixed-size records: strings become numbers (chats,
// keys, message ids, senders and error codes interned once, payload hashes
// hashed), operations are paired as they complete, and sync answers go to
// shared slabs. A million-operation history costs about a hundred bytes an
// operation here, where its parsed events cost several hundred, so a
// history is read straight into a Log (history.ScanFile) and never held
// whole. It implements history.Sink.
type Log struct {
	names stringArena       // the bytes of chats, senders and error codes
	keys  columns.NameArena // the bytes of keys and message ids
	// attributed: the keys (final numbers) that a final line without a
	// sender was given by attribution, under key_scope client: a guess
	// some rules must not build on.
	attributed map[int32]bool
	// senderlessText: the key text of each provisional key of a final
	// line without a sender that attributeSenderless left unattributed.
	senderlessText map[int32]string

	ChatNames []string
	chatIDs   map[string]int32

	// Delivery holds the receivers' lines (Delivery); nil: none.
	Delivery *Delivery

	// Keys and message ids are numbered provisionally while lines come
	// in (newKeys, newMids), and once more when the Log is indexed
	// (intern.go): keyNames, keyChat, midNames and midHash are by final
	// number.
	KeyNames []columns.NameRef // in keys
	KeyChat  []int32
	newKeys  struct {
		names  columns.Chunked[columns.NameRef]
		chat   columns.Chunked[int32]
		sender columns.Chunked[uint32] // of the persist, or the final line; noSender
		hash   columns.Chunked[uint64] // stringHash of each name
	}
	lastKey []int32 // by process: the key of its last persist, -1

	// Message ids of acks and final lines are numbered (0 is "none") and
	// hashed once; a sync's ids are only hashed: there are tens of them a
	// sync, and they are only ever compared (stringHash: a collision, at
	// odds of 2^-64, could only hide a mismatch).
	MidNames []columns.NameRef // in keys
	MidHash  []uint64
	// Kept by chat, as operations are (columns.Grouped): numbered in that
	// order, a chat's message ids are neighbours by number, and what is
	// looked up by message id for a chat's operations or final lines in
	// turn is read in order, not one cache miss each.
	NewMids columns.Grouped[midRecord]
	acked   RecentAcks // finals find their ids by their acks (intern.go)

	senderIDs   map[string]uint32
	SenderNames []string // by number, the Log's copies
	errIDs      map[string]uint16
	ErrNames    []string

	// Records as lines come in. Operations and allocations are kept by
	// chat (columns.Grouped); the index takes them numbered densely.
	Ops    columns.Grouped[Op]
	allocs columns.Grouped[Alloc]
	Fin    columns.Chunked[FinalRecord]
	// finPayload: by final line (Fin's index), a messages line's
	// payload_hash (StringHash; 0: not given), made as far as the last
	// line that gave one (FinPayload).
	finPayload []uint64
	// finSender: by final line, a messages line's sender as it states it
	// (NoSender: not given), made as far as the last line that gave one
	// (FinSender).
	finSender []uint32
	// RecordOrder keeps every record in shared blocks, in the order read:
	// a test's reference for grouping by chat.
	RecordOrder bool
	EvPos       columns.Chunked[evPos] // of the events lines in fin

	// SyncClaims are what sync answers said returned messages carried
	// (their keys, senders, payload hashes) that the first ack at the
	// sequence did not vouch for as they were read (syncContent): the
	// check compares them with what the messages' persists sent.
	// SyncClaimed counts the answered messages that said anything.
	SyncClaims  []SyncClaim
	SyncClaimed int
	// UserSyncs are the syncs that named their reader (usersyncs.go);
	// openUserSync, by process, the one still open (its index).
	UserSyncs    []UserSync
	openUserSync map[int]int32
	Syncs        columns.Chunked[syncRef]
	syncSeqs     columns.Slab[byte]   // each answer's sequences, coded (columns.AppendSeqs)
	seqCode      []byte               // addSync's scratch
	syncMids     columns.Slab[uint64] // stringHash of returned message ids the acks do not give
	syncMiss     columns.Slab[byte]   // where in their answers those are (coded as sequences)
	missAt       []uint64             // addSync's scratch
	idScr        []uint64             // addSync's scratch
	ackHash      ackHashes            // the index's: the first ack's message id hash by chat and sequence

	// Each process's open operation: by process in open (-1 none) for
	// the dense process numbers a run hands out, in outstanding for the
	// rest. A map look-up a line was a tenth of a line's cost.
	open        []int32
	outstanding map[int]int32
	senders     [SenderCache]cachedSender // by process: its last sender
	lastChat    cachedChat                // the chat chat() last found
	// finalSenders are the senders final lines named last (finalSender).
	finalSenders [16]cachedSender
	lastTime     int64
	disorder     int
	sawEvent     bool

	Warnings []string

	// spill, unless nil, is where the records the lines have moved past
	// go while a run is read (SpillTo); spillErr is what reading them
	// back met (Unspill).
	spill    *columns.SpillFile
	spillErr error
	// SpilledBytes and ReadBackBytes are what went to the spill file and
	// came back from it, once Unspill has run.
	SpilledBytes, ReadBackBytes int64
}

// Held full blocks of each container while a Log spills: enough that the
// lines of a run seldom reach back to a spilled one (an operation open
// across 16 blocks' worth of later ones: 16,384 operations), few enough
// that what stays resident does not grow with the run.
var (
	spillKeepRecords = 16 // of 1,024 operations, allocations or message ids
	spillKeepColumns = 2  // of 16,384 keys' columns, or 1 MB of names, 64 KB of sync answers
	spillKeepAcks    = 1  // of each chat's 1,024 sequences
)

// SpillKeepForTest makes Logs made from now on hold only keep full blocks
// of each kind while they spill (1: almost every line that reaches back
// reads a block back), until the function it returns restores the
// defaults.
func SpillKeepForTest(keep int) (restore func()) {
	r, c, a := spillKeepRecords, spillKeepColumns, spillKeepAcks
	spillKeepRecords, spillKeepColumns, spillKeepAcks = keep, keep, keep
	return func() { spillKeepRecords, spillKeepColumns, spillKeepAcks = r, c, a }
}

// SpillTo makes the Log move the blocks of records it has filled, but for
// the newest few of each kind, to a file in dir (os.TempDir if empty),
// removed as soon as it is made (columns.SpillFile): operations, message
// ids, keys and their names, the first acks by sequence, the sync answers.
// A line that reaches back to a spilled block reads it back; the first
// final line, or the index, reads them all back (Unspill), so the records
// the check reads are those it would have held. For a run: while its
// writers go, what the Log holds no longer grows with the operations.
func (l *Log) SpillTo(dir string) error {
	f, err := columns.NewSpillFile(dir)
	if err != nil {
		return err
	}
	l.spill = f
	l.Ops.SpillTo(f, spillKeepRecords)
	l.allocs.SpillTo(f, spillKeepRecords)
	l.NewMids.SpillTo(f, spillKeepRecords)
	l.keys.SpillTo(f, spillKeepColumns)
	l.newKeys.names.SpillTo(f, spillKeepColumns)
	l.newKeys.chat.SpillTo(f, spillKeepColumns)
	l.newKeys.sender.SpillTo(f, spillKeepColumns)
	l.newKeys.hash.SpillTo(f, spillKeepColumns)
	l.Syncs.SpillTo(f, spillKeepColumns)
	l.syncSeqs.SpillTo(f, spillKeepColumns)
	l.syncMids.SpillTo(f, spillKeepColumns)
	l.syncMiss.SpillTo(f, spillKeepColumns)
	l.acked.SpillTo(f, spillKeepAcks)
	return nil
}

// DropSpill closes the spill file without reading anything back, for a
// Log that will not be checked.
func (l *Log) DropSpill() {
	if l.spill != nil {
		l.spill.Close()
		l.spill = nil
	}
}

// Unspill reads back every block the Log spilled and closes its spill
// file; nil if it spilled nothing or read everything back. After an
// error the records read back are not the lines': no verdict may be
// given on them. Safe to call more than once.
func (l *Log) Unspill() error {
	if l.spill == nil {
		return l.spillErr
	}
	l.Ops.Unspill()
	l.allocs.Unspill()
	l.NewMids.Unspill()
	l.keys.Unspill()
	l.newKeys.names.Unspill()
	l.newKeys.chat.Unspill()
	l.newKeys.sender.Unspill()
	l.newKeys.hash.Unspill()
	l.Syncs.Unspill()
	l.syncSeqs.Unspill()
	l.syncMids.Unspill()
	l.syncMiss.Unspill()
	l.acked.Unspill()
	l.spillErr = l.spill.Err()
	l.SpilledBytes, l.ReadBackBytes = l.spill.Written, l.spill.Read
	if err := l.spill.Close(); err != nil && l.spillErr == nil {
		l.spillErr = fmt.Errorf("spill file: %w", err)
	}
	l.spill = nil
	return l.spillErr
}

// Op is one operation: an invoke paired with the next completion of the
// same process. Fields that only some operations have share their place
// (ref, aux, flag), read through the methods below, so that an operation
// takes 64 bytes: a history's largest record.
type Op struct {
	call, done int64  // invoke time; completion time (0 if none)
	seq        uint64 // persist ok: the acknowledged sequence; sync: after
	Payload    uint64 // persist: stringHash of its payload_hash
	InvLine    int32
	DoneLine   int32 // 0 if it never completed
	Process    int32
	Chat       int32
	Key        int32 // scoped idempotency key of a persist; -1 for syncs and keyless persists
	// ref is a persist ok's message id, a sync ok's answer in syncs (-1
	// none), a fail's or info's error code.
	ref uint32
	// aux is a persist's sender, a sync's page size.
	aux    uint32
	Fn     fnKind
	Status opStatus
	// flag is a persist ok's dedup (answered as a replay), a sync's reader
	// (a sync of a catch-up client, "reader": true, catch_up_completeness.go).
	flag bool
}

// mid is a persist ok's acknowledged message id, 0 none.
func (o *Op) mid() uint32 {
	if o.Fn == FnPersist && o.Status == StOK {
		return o.ref
	}
	return 0
}

// Sync is a sync ok's answer in the Log's syncs, -1 none.
func (o *Op) Sync() int32 {
	if o.Fn == FnSync && o.Status == StOK {
		return int32(o.ref)
	}
	return -1
}

// Err is a fail's or info's error code, 0 none.
func (o *Op) Err() uint16 {
	if o.Status == StFail || o.Status == StInfo {
		return uint16(o.ref)
	}
	return 0
}

// Sender is a persist's sender.
func (o *Op) Sender() uint32 {
	if o.Fn == FnPersist {
		return o.aux
	}
	return 0
}

// limit is a sync's page size.
func (o *Op) limit() int32 {
	if o.Fn == FnSync {
		return int32(o.aux)
	}
	return 0
}

// dedup: a persist ok answered as a replay.
func (o *Op) dedup() bool { return o.Fn == FnPersist && o.Status == StOK && o.flag }

// Reader: a sync of a catch-up client.
func (o *Op) Reader() bool { return o.Fn == FnSync && o.flag }

// Alloc is one traced counter allocation: it returned during [start, end].
type Alloc struct {
	End, Start int64
	Seq        uint64
	Line       int32
	Op         int32 // the operation it was handed to; -1 if none was outstanding
	Chat       int32
	hasStart   bool
}

// FinalRecord is one final line. Lines are numbered by int32, as operations'
// are; an events line's partition and offset are kept beside (evPos), so
// that the messages and idempotency lines, a history's bulk, take 32 bytes.
type FinalRecord struct {
	Seq       uint64 // messages, idempotency, events; counters: the value
	Line      int32
	Chat      int32
	Key       int32  // messages, idempotency: the key's id, -1
	MessageID uint32 // interned, 0 none
	EventPos  int32  // events: its position in the Log's evPos
	Table     TableKind
	Missing   bool // counters: the item is gone
}

// evPos is where an events line's message is in the topic.
type evPos struct {
	Offset    int64
	Partition int32
}

type TableKind uint8

const (
	tableUnknown TableKind = iota
	TableCounters
	TableMessages
	TableIdempotency
	TableEvents
)

var tableNames = [...]string{tableUnknown: "unknown", TableCounters: history.TableCounters, TableMessages: history.TableMessages, TableIdempotency: history.TableIdempotency, TableEvents: history.TableEvents}

func (t TableKind) String() string { return tableNames[t] }

// counterpart is the table a messages line's record is in, or an
// idempotency record's message: the other of the two.
func (t TableKind) counterpart() TableKind {
	if t == TableMessages {
		return TableIdempotency
	}
	return TableMessages
}

func tableOf(name string) TableKind {
	switch name {
	case history.TableCounters:
		return TableCounters
	case history.TableMessages:
		return TableMessages
	case history.TableIdempotency:
		return TableIdempotency
	case history.TableEvents:
		return TableEvents
	}
	return tableUnknown
}

// syncRef is one sync answer: its sequences (coded) and its message ids.
// A sync mostly returns messages already acknowledged, and with the ids
// they were acknowledged with: such an id is not kept, but read back from
// the first ack at its sequence (ackHashes), which never changes once
// made. mids holds the others, at the positions miss codes; or, when
// explicit, every id the line had (as many as it had).
type syncRef struct {
	seqs, Mids, miss columns.SlabRef
	explicit         bool
}

// NewLog returns an empty Log.
func NewLog() *Log {
	l := &Log{
		chatIDs:     map[string]int32{},
		senderIDs:   map[string]uint32{},
		errIDs:      map[string]uint16{"": 0},
		ErrNames:    []string{""},
		outstanding: map[int]int32{},
		lastTime:    math.MinInt64,
	}
	l.NewMids.Add(-1, midRecord{}) // message id 0 is none
	return l
}

func (l *Log) warn(format string, args ...any) {
	l.Warnings = append(l.Warnings, fmt.Sprintf(format, args...))
}

func (l *Log) Chat(name string) int32 {
	// Final lines come chat by chat: the last one found is mostly the
	// next one asked for (its name is the Log's own copy, see below).
	if name == l.lastChat.name && name != "" {
		return l.lastChat.id
	}
	if id, ok := l.chatIDs[name]; ok {
		l.lastChat = cachedChat{l.ChatNames[id], id}
		return id
	}
	id := int32(len(l.ChatNames))
	name = l.names.string(name)
	l.chatIDs[name] = id
	l.ChatNames = append(l.ChatNames, name)
	return id
}

func (l *Log) Sender(s string) uint32 {
	id, ok := l.senderIDs[s]
	if !ok {
		id = uint32(len(l.SenderNames))
		s = l.names.string(s)
		l.senderIDs[s] = id
		l.SenderNames = append(l.SenderNames, s)
	}
	return id
}

// senderCache is how many processes' last senders the Log remembers, by
// process modulo it: a process mostly sends as one user.
const SenderCache = 64

// cachedChat is a chat's name (the Log's own copy) and number.
type cachedChat struct {
	name string
	id   int32
}

// cachedSender is a sender's name (the Log's own copy) and number.
type cachedSender struct {
	name string
	id   uint32
}

// senderOf is sender(s) for a persist of process, mostly without a map
// look-up. The name cached is the Log's copy, never the line's: a
// reader's string may be a view of a buffer it reuses.
func (l *Log) senderOf(process int, s string) uint32 {
	return l.senderVia(&l.senders[uint(process)%SenderCache], s)
}

// FinalSender is sender(s) for a final line, mostly without a map
// look-up: a run's messages come from a few senders, remembered by the
// last byte and length of their names.
func (l *Log) FinalSender(s string) uint32 {
	if s == "" {
		return l.Sender(s)
	}
	return l.senderVia(&l.finalSenders[(len(s)*7+int(s[len(s)-1]))%len(l.finalSenders)], s)
}

// senderVia is sender(s), taken from c when c holds s, else looked up and
// left in c.
func (l *Log) senderVia(c *cachedSender, s string) uint32 {
	if c.name == s && s != "" {
		return c.id
	}
	id := l.Sender(s)
	*c = cachedSender{l.SenderNames[id], id}
	return id
}

func (l *Log) errCode(s string) uint16 {
	id, ok := l.errIDs[s]
	if !ok {
		if len(l.ErrNames) == math.MaxUint16 {
			return 0
		}
		id = uint16(len(l.ErrNames))
		s = l.names.string(s)
		l.errIDs[s] = id
		l.ErrNames = append(l.ErrNames, s)
	}
	return id
}

// denseProcesses bounds the processes whose open operation is kept by
// number (open); a run numbers its processes densely from 1.
const DenseProcesses = 1 << 20

// openOf is process's open operation.
func (l *Log) openOf(process int) (int32, bool) {
	if uint(process) < uint(len(l.open)) {
		oi := l.open[process]
		return oi, oi >= 0
	}
	if uint(process) < DenseProcesses {
		return 0, false
	}
	oi, ok := l.outstanding[process]
	return oi, ok
}

// setOpen makes oi process's open operation.
func (l *Log) setOpen(process int, oi int32) {
	if uint(process) >= DenseProcesses {
		l.outstanding[process] = oi
		return
	}
	for process >= len(l.open) {
		l.open = append(l.open, -1)
	}
	l.open[process] = oi
}

// closeOpen leaves process with no open operation.
func (l *Log) closeOpen(process int) {
	if uint(process) < uint(len(l.open)) {
		l.open[process] = -1
	} else {
		delete(l.outstanding, process)
	}
}

// Event takes the next operation or trace line, in file order. It pairs
// each invoke with the next completion of the same process and gives each
// allocate trace to the operation its process has outstanding; what does
// not fit is warned about, as HISTORY.md's structure rules say.
func (l *Log) Event(e *history.Event) {
	if l.sawEvent && e.Time < l.lastTime {
		if l.disorder == 0 {
			l.warn("line %d: time %d is earlier than the event before it; events should be in time order", e.Line, e.Time)
		}
		l.disorder++
	}
	l.sawEvent = true
	l.lastTime = max(l.lastTime, e.Time)
	switch e.Kind {
	case history.KindInvoke:
		l.invoke(e)
	case history.KindOK, history.KindFail, history.KindInfo:
		l.complete(e)
	case history.KindTrace:
		l.trace(e)
	case history.KindFinal:
		l.warn("line %d: final line among events ignored (finals belong in History.Finals)", e.Line)
	}
}

func (l *Log) invoke(e *history.Event) {
	var fn fnKind
	switch e.F {
	case history.FPersist:
		fn = FnPersist
	case history.FSync:
		fn = FnSync
	default:
		l.warn("line %d: invoke of unknown f %q ignored", e.Line, e.F)
		return
	}
	if prev, ok := l.openOf(e.Process); ok {
		l.warn("line %d: process %d invoked again while its operation from line %d was outstanding; that one counts as unfinished", e.Line, e.Process, l.Ops.At(prev).InvLine)
		l.userSyncAbandoned(e.Process)
	}
	chat := l.Chat(e.Chat)
	key, aux, payload := int32(-1), uint32(0), uint64(0)
	if fn == FnPersist {
		aux = l.senderOf(e.Process, e.Sender)
		if e.Key == "" {
			l.warn("line %d: persist without key: left out of key-based invariants", e.Line)
		} else {
			key = l.KeyID(e.Process, chat, aux, e.Key)
		}
		payload = StringHash(e.PayloadHash)
	} else {
		aux = uint32(int32(min(max(e.Limit, math.MinInt32), math.MaxInt32)))
		if e.Sender != "" {
			l.userSyncInvoked(e.Process, chat, int32(e.Line), e.Sender)
		}
	}
	// Written in place (Grouped.AddZero): copied in whole, the record was
	// read back from where its fields had just been stored one by one.
	oi, o := l.Ops.AddZero(l.groupOf(chat))
	o.call, o.InvLine, o.Process, o.Chat, o.Key, o.Fn = e.Time, int32(e.Line), int32(e.Process), chat, key, fn
	o.aux, o.Payload = aux, payload
	if fn == FnSync {
		o.seq, o.flag = e.After, e.Reader
	}
	l.setOpen(e.Process, oi)
}

func (l *Log) complete(e *history.Event) {
	oi, ok := l.openOf(e.Process)
	if !ok {
		l.warn("line %d: %s for process %d, which has no outstanding operation: ignored", e.Line, e.Kind, e.Process)
		return
	}
	l.closeOpen(e.Process)
	o := l.Ops.At(oi)
	var f string
	switch o.Fn {
	case FnPersist:
		f = history.FPersist
	case FnSync:
		f = history.FSync
	}
	if e.F != "" && e.F != f {
		l.warn("line %d: completion f %q does not match its invoke's %q (line %d)", e.Line, e.F, f, o.InvLine)
	}
	if e.Chat != "" && e.Chat != l.ChatNames[o.Chat] {
		l.warn("line %d: completion chat %q does not match its invoke's %q (line %d)", e.Line, e.Chat, l.ChatNames[o.Chat], o.InvLine)
	}
	o.done, o.DoneLine = e.Time, int32(e.Line)
	switch e.Kind {
	case history.KindOK:
		o.Status = StOK
		if o.Fn == FnPersist {
			o.seq, o.ref, o.flag = e.Seq, l.mid(o.Chat, e.MessageID), e.Dedup
			if o.ref != 0 {
				a := AckAt{Mid: o.ref, key: o.Key, sender: o.aux, MidHash: l.NewMids.At(int32(o.ref)).hash, payload: o.Payload, created: !e.Dedup}
				if o.Key >= 0 {
					a.keyHash = *l.newKeys.hash.At(o.Key)
				}
				l.acked.Remember(o.Chat, o.seq, a)
			}
		} else {
			o.ref = ^uint32(0) // -1: no answer
			if e.Sync != nil {
				o.ref = uint32(l.addSync(o.Chat, e.Sync))
				l.syncContent(o.Chat, int32(e.Line), e.Sync)
			}
		}
	case history.KindFail:
		o.Status, o.ref = StFail, uint32(l.errCode(e.Error))
	default:
		o.Status, o.ref = StInfo, uint32(l.errCode(e.Error))
	}
	if o.Fn == FnSync {
		l.userSyncDone(e.Process, o.DoneLine, o.Status)
	}
}

func (l *Log) addSync(chat int32, r *history.SyncResult) int32 {
	l.seqCode = columns.AppendSeqs(l.seqCode[:0], r.Seqs)
	ref := syncRef{seqs: l.syncSeqs.Add(l.seqCode)}
	ids := r.IDHashes
	if ids == nil && len(r.MessageIDs) > 0 {
		ids = l.idScr[:0]
		for _, id := range r.MessageIDs {
			ids = append(ids, StringHash(id))
		}
		l.idScr = ids
	}
	if len(ids) != len(r.Seqs) {
		ref.explicit = true // sync_completeness fails it: kept as it was
		ref.Mids = l.syncMids.Add(ids)
	} else {
		// The positions of ids that are not their sequence's first ack's.
		miss := l.missAt[:0]
		for i, s := range r.Seqs {
			if a := l.acked.At(chat, s); a == nil || a.MidHash != ids[i] {
				miss = append(miss, uint64(i))
			}
		}
		l.missAt = miss
		var mids []uint64
		mids, ref.Mids = l.syncMids.Grow(len(miss))
		for j, i := range miss {
			mids[j] = ids[i]
		}
		l.seqCode = columns.AppendSeqs(l.seqCode[:0], miss)
		ref.miss = l.syncMiss.Add(l.seqCode)
	}
	return l.Syncs.Add(ref)
}

// HashID makes history.Scan hand the Log a sync's message ids as their
// stringHash, computed while the line is parsed (history.IDHasher).
func (l *Log) HashID(id []byte) uint64 {
	if len(id) == 0 {
		return 0
	}
	return BytesHash(id)
}

func (l *Log) trace(e *history.Event) {
	if e.F != history.FAllocate {
		l.warn("line %d: trace of unknown f %q ignored", e.Line, e.F)
		return
	}
	a := Alloc{End: e.Time, Seq: e.Seq, Line: int32(e.Line), Op: -1, Chat: -1, Start: e.Start, hasStart: e.HasStart}
	oi, ok := l.openOf(e.Process)
	if ok && l.Ops.At(oi).Fn == FnPersist && l.ChatNames[l.Ops.At(oi).Chat] == e.Chat {
		a.Chat = l.Ops.At(oi).Chat // its owner's: no look-up
	} else {
		a.Chat = l.Chat(e.Chat)
	}
	if ok && l.Ops.At(oi).Fn != FnPersist {
		l.warn("line %d: allocation for process %d, whose outstanding operation (line %d) is not a persist", e.Line, e.Process, l.Ops.At(oi).InvLine)
		ok = false
	}
	if ok {
		o := l.Ops.At(oi)
		a.Op = oi
		switch {
		case !e.HasStart:
			a.Start = o.call
		case a.Start < o.call:
			// The allocation serves the persist outstanding (HISTORY.md): it
			// cannot have begun before that was invoked. Taken as given, a
			// start before it widened the interval until two allocations in
			// inverted order overlapped, and passed (an outside walk-through).
			l.warn("line %d: allocation starts at %d, before its persist (line %d) was invoked at %d: its start is taken as %d", e.Line, a.Start, o.InvLine, o.call, o.call)
			a.Start = o.call
		}
		if oc := l.ChatNames[o.Chat]; oc != e.Chat {
			l.warn("line %d: allocation on chat %q for process %d, whose outstanding operation (line %d) is on chat %q", e.Line, e.Chat, e.Process, o.InvLine, oc)
		}
	} else if !e.HasStart {
		// Without an owner or a start the allocation could have begun
		// at any time: assume the earliest, so that no order violation
		// is claimed on a guess.
		a.Start = TimeMin
		l.warn("line %d: allocation for process %d, which has no outstanding operation and no start", e.Line, e.Process)
	}
	if a.Start > e.Time {
		l.warn("line %d: allocation starts at %d, after it returned at %d: its start is taken as %d", e.Line, a.Start, e.Time, e.Time)
		a.Start = e.Time
	}
	_, in := l.allocs.AddZero(l.groupOf(a.Chat))
	in.End, in.Start, in.Seq, in.Line, in.Op, in.Chat, in.hasStart = a.End, a.Start, a.Seq, a.Line, a.Op, a.Chat, a.hasStart // field by field (Grouped.AddZero)
}

// Final takes the next final line; finals come after every event.
func (l *Log) Final(f *history.Final) {
	if l.spill != nil {
		// The writers are done: every record is read from here on.
		l.Unspill()
	}
	c := FinalRecord{Seq: f.Seq, Line: int32(f.Line), Chat: l.Chat(f.Chat), Key: -1, Table: tableOf(f.Table), Missing: f.Missing}
	switch c.Table {
	case TableCounters:
		c.Seq = f.Value
	case TableMessages, TableIdempotency:
		sender := NoSender // an optional field: who sent the key
		if f.Sender != "" {
			sender = l.FinalSender(f.Sender)
		}
		c.MessageID, c.Key = l.finalIDs(c.Chat, f.Seq, f.MessageID, f.Key, sender)
		if f.PayloadHash != "" && c.Table == TableMessages {
			at := l.Fin.Len()
			for len(l.finPayload) < at {
				l.finPayload = append(l.finPayload, 0)
			}
			l.finPayload = append(l.finPayload, StringHash(f.PayloadHash))
		}
		if f.Sender != "" && c.Table == TableMessages {
			at := l.Fin.Len()
			for len(l.finSender) < at {
				l.finSender = append(l.finSender, NoSender)
			}
			l.finSender = append(l.finSender, sender)
		}
		if c.Key < 0 && c.Table == TableIdempotency {
			// An idempotency record always has a key, "" included.
			c.Key = l.NewKey(c.Chat, sender, "")
		}
	case TableEvents:
		// Events repeat the acks too: the ack's id where it is the same.
		c.MessageID, _ = l.finalIDs(c.Chat, f.Seq, f.MessageID, "", NoSender)
		c.EventPos = l.EvPos.Add(evPos{Offset: f.Offset, Partition: f.Partition})
	default:
		l.warn("line %d: final line of unknown table %q ignored", f.Line, f.Table)
	}
	l.Fin.Add(c)
}

// stringArena copies the strings a Log keeps into large shared blocks, so
// that a kept key or id does not hold on to the reader's buffers and each
// costs no allocation of its own.
type stringArena struct{ block []byte }

func (a *stringArena) string(s string) string {
	if s == "" {
		return ""
	}
	if len(s) > cap(a.block)-len(a.block) {
		if len(s) > 4096 {
			return string([]byte(s))
		}
		// Small first, so that a small history stays cheap; doubling
		// up to 1 MB.
		a.block = make([]byte, 0, min(max(2*cap(a.block), 4<<10), 1<<20))
	}
	start := len(a.block)
	a.block = append(a.block, s...)
	return unsafeString(a.block[start:])
}

// FinPayload is final line i's payload_hash (StringHash), 0 where it
// gave none: what the stored message's content hashes to.
func (l *Log) FinPayload(i int32) uint64 {
	if int(i) < len(l.finPayload) {
		return l.finPayload[i]
	}
	return 0
}

// FinSender is final messages line i's sender as the line states it,
// NoSender where it gives none.
func (l *Log) FinSender(i int32) uint32 {
	if int(i) < len(l.finSender) {
		return l.finSender[i]
	}
	return NoSender
}

// Value is a counters line's value.
func (f *FinalRecord) Value() uint64 { return f.Seq }

// FinKeyName is a messages or idempotency line's key, "" if it has none.
func (l *Log) FinKeyName(f *FinalRecord) string {
	if f.Key < 0 {
		return ""
	}
	return l.keys.Get(l.KeyNames[f.Key])
}

// unsafeString is b as a string without a copy; b is never written again.
func unsafeString(b []byte) string { return unsafe.String(&b[0], len(b)) }

// groupOf is the group a chat's records are kept in (columns.Grouped).
func (l *Log) groupOf(chat int32) int32 {
	if l.RecordOrder {
		return -1
	}
	return chat
}

// LogOf is a Log of h's lines.
func LogOf(h *history.History) *Log {
	l := NewLog()
	for i := range h.Events {
		l.Event(&h.Events[i])
	}
	for i := range h.Finals {
		l.Final(&h.Finals[i])
	}
	for i := range h.Receivers {
		l.Receiver(&h.Receivers[i])
	}
	return l
}

// IndexOf is h's index, as Check builds it for a complete history.
func IndexOf(h *history.History) *Index {
	return BuildIndex(LogOf(h), h.Header, h.TablesRead, h.Header.Contract.KeysPerSender(), h.Header.SoleWriter())
}
