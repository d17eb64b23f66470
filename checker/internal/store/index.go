package store

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/chatseq/chatseq/checker/internal/columns"
	"github.com/chatseq/chatseq/checker/linearize"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/internal/parallel"
	"github.com/chatseq/chatseq/internal/timings"
)

// The index is built once per Check from a Log and shared by every
// invariant: the Log's compact records, and views of them sorted by chat,
// sequence and key.

type fnKind uint8

const (
	FnPersist fnKind = iota + 1
	FnSync
)

type opStatus uint8

const (
	StOpen opStatus = iota // invoked, never completed: counts as info
	StOK
	StFail
	StInfo
)

const (
	TimeMin = math.MinInt64
	TimeMax = math.MaxInt64 // the return of an operation whose outcome is unknown
)

// Index is a Log with the sorted views every invariant shares.
type Index struct {
	*Log

	// kinds caches KindsOf for kindsReject.
	kindsMu     sync.Mutex
	kinds       []linearize.Kind
	kindsReject bool
	// recordsByChat: the final idempotency records by chat (RecordsOf).
	recordsOnce   sync.Once
	recordsByChat map[int32][]int32
	// keylessTexts: per chat, its final messages whose key is not known
	// (KeylessMayHold).
	keylessOnce  sync.Once
	keylessTexts map[int32]keylessTextsOf
	// rejecting: per chat, the key texts of its persists rejected as
	// reused (rejectedTextsOf).
	rejectingOnce sync.Once
	rejecting     map[int32]map[string]bool
	// proofs: per key, keyWasAnswered and keyWasRejected (keyProofs).
	proofsOnce sync.Once
	proofs     []uint8

	// The Log's records, in the blocks they were read into: gathering
	// them into one slice each copied a quarter of a run's memory at once
	// (columns.Chunked).
	Ops    *columns.Chunked[Op]
	Allocs *columns.Chunked[Alloc]
	Fin    *columns.Chunked[FinalRecord]

	// Sorted views; *Span[c]..*Span[c+1] is chat c's slice of each.
	Acks        []int32 // persist-ok ops by (chat, seq, call)
	AckSpan     []int32
	Msgs        []int32 // final messages by (chat, seq, line)
	MsgSpan     []int32
	Events      []int32 // final events by (chat, seq, line)
	EventSpan   []int32
	AllocBySeq  []int32 // allocs by (chat, seq, end)
	AllocSpan   []int32
	OpsByChat   []int32 // ops in invoke order, per chat
	OpChatSpan  []int32
	SyncsByChat []int32 // syncs that completed ok, in invoke order, per chat
	SyncSpan    []int32
	opsByKey    []int32 // persist ops in invoke order, per key
	OpKeySpan   []int32
	Counter     []int32 // per chat: index of its final counters line, -1
	// CounterConflicts are the chats whose counters table holds a second
	// line that disagrees with the first (another value, or missing):
	// the first line and the disagreeing one, by final index. A counter
	// holds one value; judged by its first line alone, the verdict hung
	// on the lines' order (a value, then "missing", passed).
	CounterConflicts [][2]int32
	KeyMsg           []int32 // per key: first final message carrying it, -1
	KeyIdem          []int32 // per key: first final idempotency record, -1
	KeyCreated       []bool  // per key: some persist was acked as its new message
	KeylessMsgs      int     // final messages without a key
	// KeylessMsgIn counts them by chat: only their chat's operations of
	// unknown outcome may be theirs.
	KeylessMsgIn map[int32]int
	// KeylessIdems counts final idempotency records no key is known for:
	// under key_scope client, records without a sender that no single
	// sender's key claims (CanonicalMaps).
	KeylessIdems int
	// KeylessIdemIn counts them by chat: only their chat's keys may be
	// theirs.
	KeylessIdemIn map[int32]int
	// SenderlessKey is, by final line, the key text of the lines without a
	// sender whose key could not be attributed (key_scope client): such a
	// line may be a key's missing counterpart only under that key's text.
	SenderlessKey map[int32]string
	// KeyMsg2 and keyIdem2 map the keys a second final message or
	// idempotency record carries to it: rare (a failure), so not slices
	// by key, which held 8 bytes a key.
	KeyMsg2, KeyIdem2 map[int32]int32

	// HasCounters and the others: the table is present, with final lines
	// or a table_read line (read, even empty).
	HasCounters, HasMessages, HasIdem, HasEvents bool
	// ReadEmpty names the tables a table_read line says were read and
	// found empty, for the details of the invariants that read them.
	ReadEmpty map[TableKind]bool
	// Read maps the tables a table_read line says were read to that
	// line: their content is known, a row not there is not there.
	Read map[TableKind]int

	// clientScope: key_scope client; attributed: the keys a final line
	// without a sender was given by attribution (Log.attributed).
	clientScope bool
	Attributed  map[int32]bool
	// SoleWriter: the history's clients are its chats' only writers (the
	// header's sole_writer, or Options.SoleWriter). Without it a message
	// no client of the history could have made is another writer's:
	// allowed, with a warning.
	SoleWriter bool
	// InitialCounter is every chat's counter before the run (the header's
	// "initial_counter", a chatseq extension; 0 without it).
	InitialCounter uint64
	// unknownUntraced[c] counts chat c's persists whose outcome is unknown
	// and that traced no allocation: each may have allocated a sequence
	// whose answer never came back (a timeout on step 3).
	UnknownUntraced []uint64
	// UntracedNew[c] is chat c's persists answered ok as new that traced
	// no allocation, in a history that traces some (trace lines are
	// optional): each ack is an allocation of its sequence, somewhere in
	// its persist's interval. nil in a history without traces.
	UntracedNew [][]int32

	warnMu sync.Mutex // invariants run concurrently and may warn
}

func (x *Index) Warn(format string, args ...any) {
	x.warnMu.Lock()
	defer x.warnMu.Unlock()
	x.Warnings = append(x.Warnings, fmt.Sprintf(format, args...))
}

// Accessors.

func (x *Index) Call(o int32) int64 { return x.Ops.At(o).call }

// Ret is when o's effect is known to be over: its completion for ok and
// fail, never for info and unfinished operations (open-ended).
func (x *Index) Ret(o int32) int64 {
	switch x.Ops.At(o).Status {
	case StOK, StFail:
		return x.Ops.At(o).done
	}
	return TimeMax
}

func (x *Index) AckSeq(o int32) uint64 { return x.Ops.At(o).seq }

func (x *Index) AckID(o int32) uint32 { return x.Ops.At(o).mid() }

// MidName is an interned message id's text.
func (x *Index) MidName(id uint32) string { return x.keys.Get(x.MidNames[id]) }

// KeyText is an interned key's text.
func (x *Index) KeyText(k int32) string { return x.keys.Get(x.KeyNames[k]) }

func (x *Index) InvLine(o int32) int { return int(x.Ops.At(o).InvLine) }

func (x *Index) DoneLine(o int32) int { return int(x.Ops.At(o).DoneLine) }

func (x *Index) OpLines(o int32) []int { return []int{x.InvLine(o), x.DoneLine(o)} }

// KeyName is o's idempotency key ("" for a keyless persist or a sync).
func (x *Index) KeyName(o int32) string {
	if k := x.Ops.At(o).Key; k >= 0 {
		return x.KeyText(k)
	}
	return ""
}

// After and limit are a sync's cursor and page size.
func (x *Index) After(o int32) uint64 { return x.Ops.At(o).seq }

func (x *Index) Limit(o int32) int { return int(x.Ops.At(o).limit()) }

// SyncBuf holds a caller's decoded sync answers, reused from one sync to
// the next.
type SyncBuf struct{ seqs, ids, miss []uint64 }

// SyncSeqsOf is the sequences sync o returned, decoded into buf.seqs (a
// slice of their own when it is nil), and false if it has no answer: for
// the invariants that need no message ids.
func (x *Index) SyncSeqsOf(o int32, buf *SyncBuf) ([]uint64, bool) {
	r := x.Ops.At(o).Sync()
	if r < 0 {
		buf.seqs = buf.seqs[:0]
		return buf.seqs, false
	}
	code := x.syncSeqs.Get(x.Syncs.At(r).seqs)
	if buf.seqs == nil {
		buf.seqs = make([]uint64, 0, columns.CountSeqs(code))
	}
	buf.seqs = columns.DecodeSeqs(buf.seqs[:0], code)
	return buf.seqs, true
}

// SyncResult is what sync o returned: its sequences and message ids (as
// many as its line had; a count that differs is sync_completeness's
// failure), and false if it has no answer. The ids are hashes (compare
// them with midHash of an interned id). Both are decoded into buf, the
// caller's to reuse; into slices of their own when buf is nil.
func (x *Index) SyncResult(o int32, buf *SyncBuf) (seqs []uint64, ids []uint64, ok bool) {
	if buf == nil {
		buf = &SyncBuf{}
	}
	if _, ok := x.SyncSeqsOf(o, buf); !ok {
		return buf.seqs, buf.ids[:0], false
	}
	ref := x.Syncs.At(x.Ops.At(o).Sync())
	if ref.explicit {
		return buf.seqs, x.syncMids.Get(ref.Mids), true
	}
	chat := x.Ops.At(o).Chat
	buf.ids = slices.Grow(buf.ids[:0], len(buf.seqs))
	for _, s := range buf.seqs {
		buf.ids = append(buf.ids, x.ackHash.At(chat, s))
	}
	mids := x.syncMids.Get(ref.Mids)
	if len(mids) > 0 {
		buf.miss = columns.DecodeSeqs(buf.miss[:0], x.syncMiss.Get(ref.miss))
		for j, i := range buf.miss {
			buf.ids[i] = mids[j]
		}
	}
	return buf.seqs, buf.ids, true
}

func (x *Index) AllocSeq(a int32) uint64 { return x.Allocs.At(a).Seq }

func (x *Index) AllocEnd(a int32) int64 { return x.Allocs.At(a).End }

// AllocStartLines is the trace line plus, when the interval's start came
// from the operation's invoke, that invoke's line.
func (x *Index) AllocStartLines(a int32) []int {
	al := x.Allocs.At(a)
	lines := []int{int(al.Line)}
	if !al.hasStart && al.Op >= 0 {
		lines = append(lines, x.InvLine(al.Op))
	}
	return lines
}

func (x *Index) Status(o int32) string {
	switch x.Ops.At(o).Status {
	case StOK:
		if x.Ops.At(o).dedup() {
			return "ok(dedup)"
		}
		return "ok"
	case StFail:
		return "fail"
	case StInfo:
		return "info"
	}
	return "unfinished"
}

// ErrCode is o's completion error, or its status when it has none.
func (x *Index) ErrCode(o int32) string {
	if e := x.Ops.At(o).Err(); e != 0 {
		return x.ErrNames[e]
	}
	return x.Status(o)
}

func (x *Index) IsDedup(o int32) bool {
	return x.Ops.At(o).dedup()
}

func Span(sp []int32, c int32) (int, int) { return int(sp[c]), int(sp[c+1]) }

// MaxSpan is the largest chat's share of a sorted view.
func MaxSpan(sp []int32) int {
	m := int32(0)
	for c := 1; c < len(sp); c++ {
		m = max(m, sp[c]-sp[c-1])
	}
	return int(m)
}

// HasMsgHashFrom reports whether one chat's msgs hold seq with a message
// id of hash h, looking from index from of them on (searchFrom); it
// returns where the sequence's messages begin, for the next look-up.
func (x *Index) HasMsgHashFrom(msgs []int32, from int, seq uint64, h uint64) (found bool, at int32, next int) {
	i, _ := columns.SearchFrom(msgs, from, seq, func(m int32, t uint64) int { return cmp.Compare(x.Fin.At(m).Seq, t) })
	at = -1
	for j := i; j < len(msgs) && x.Fin.At(msgs[j]).Seq == seq; j++ {
		at = msgs[j]
		if x.MidHash[x.Fin.At(at).MessageID] == h {
			return true, at, i
		}
	}
	return false, at, i
}

// BuildIndex sorts the Log's views; the Log becomes the index's. Its steps
// that touch different records run side by side: after the writers stop,
// this is most of what bench waits for.
// tablesRead are the history's table_read lines (none for a history cut
// short: its final state is not judged). soleWriter is the header's
// sole_writer as the options leave it.
func BuildIndex(l *Log, h history.Header, tablesRead []history.TableRead, clientScope, soleWriter bool) *Index {
	x := &Index{Log: l, SoleWriter: soleWriter, InitialCounter: h.InitialCounter()}
	l.Unspill() // its error is the caller's to ask first (Feed.Check)
	// Nothing is interned any more: the maps' memory goes back before the
	// invariants take theirs.
	l.chatIDs, l.senderIDs, l.errIDs = nil, nil, nil
	l.ackHash, l.acked = l.acked.Hashes(), RecentAcks{}
	// Operations still open at the end never completed (unfinished): where
	// each process's open one was is not needed any more, in the dense
	// slice or the map.
	l.open = nil
	clear(l.outstanding)
	done := timings.Phase("index: records numbered densely")
	x.clientScope = clientScope
	x.Ops, x.Allocs = l.CompactRecords()
	x.Fin = &l.Fin
	done()
	// Keys and message ids are numbered on one core while the views that
	// need no key are sorted on the other: numbering had left a core idle.
	done = timings.Phase("index: numbering, chat views")
	nc := int32(len(x.ChatNames))
	parallel.RunAll([]func(){
		func() {
			var sl *senderlessRule
			if clientScope {
				sl = &senderlessRule{soleWriter: soleWriter, initialCounter: x.InitialCounter, ops: x.Ops}
			}
			keyMap, midMap := l.CanonicalMaps(sl)
			parallel.RunAll([]func(){
				func() { RenumberOps(x.Ops, keyMap, midMap) },
				func() { x.SenderlessKey = renumberFinals(x.Fin, keyMap, midMap, l.senderlessText) },
			})
		},
		func() { x.chatViews(nc) },
	})
	done()
	if l.disorder > 1 {
		l.warn("events earlier than an event before them: %d", l.disorder)
	}
	x.Attributed = l.attributed // (known once keys are numbered)
	done = timings.Phase("index: finals, key views")
	x.indexFinals(tablesRead)
	x.keyViews(nc, len(x.KeyNames))
	done()
	return x
}

// CompactRecords numbers the Log's operations and allocations densely,
// each chat's still one after another, and points each allocation at its
// operation's new number.
func (l *Log) CompactRecords() (*columns.Chunked[Op], *columns.Chunked[Alloc]) {
	opAt := l.Ops.Renumbering()
	var ops columns.Chunked[Op]
	var allocs columns.Chunked[Alloc]
	parallel.RunAll([]func(){
		func() { ops = l.Ops.Compact() },
		func() {
			allocs = l.allocs.Compact()
			allocs.Each(func(a *Alloc) {
				if a.Op >= 0 {
					a.Op = opAt.Of(a.Op)
				}
			})
		},
	})
	return &ops, &allocs
}

// countUnknownUntraced fills unknownUntraced.
func (x *Index) countUnknownUntraced() {
	traced := make([]bool, x.Ops.Len())
	x.Allocs.Each(func(a *Alloc) {
		if a.Op >= 0 {
			traced[a.Op] = true
		}
	})
	x.UnknownUntraced = make([]uint64, len(x.ChatNames))
	if x.Allocs.Len() > 0 {
		x.UntracedNew = make([][]int32, len(x.ChatNames))
	}
	i := 0
	x.Ops.Each(func(o *Op) {
		if o.Fn == FnPersist && (o.Status == StInfo || o.Status == StOpen) && !traced[i] {
			x.UnknownUntraced[o.Chat]++
		}
		if x.UntracedNew != nil && o.Fn == FnPersist && o.Status == StOK && !o.dedup() && !traced[i] {
			x.UntracedNew[o.Chat] = append(x.UntracedNew[o.Chat], int32(i))
		}
		i++
	})
}

func (x *Index) indexFinals(tablesRead []history.TableRead) {
	x.ReadEmpty, x.Read = map[TableKind]bool{}, map[TableKind]int{}
	for _, t := range tablesRead {
		x.markPresent(tableOf(t.Table))
		x.Read[tableOf(t.Table)] = t.Line
		if t.Lines == 0 {
			x.ReadEmpty[tableOf(t.Table)] = true
		}
	}
	firstCounter := map[int32]int32{}
	for i := range x.Fin.Count() {
		f := x.Fin.At(i)
		x.markPresent(f.Table)
		if f.Table != TableCounters {
			continue
		}
		fi, seen := firstCounter[f.Chat]
		if !seen {
			firstCounter[f.Chat] = int32(i)
			continue
		}
		if first := x.Fin.At(fi); first.Missing != f.Missing || (!f.Missing && first.Value() != f.Value()) {
			x.CounterConflicts = append(x.CounterConflicts, [2]int32{fi, int32(i)})
			continue
		}
		x.Warn("line %d: a second counters line for chat %q, the same as the first (line %d)", f.Line, x.ChatNames[f.Chat], x.Fin.At(fi).Line)
	}
}

// WasRead reports whether a table_read line names table t.
func (x *Index) WasRead(t TableKind) bool {
	_, ok := x.Read[t]
	return ok
}

// markPresent notes that table t is present: read, or holding lines.
func (x *Index) markPresent(t TableKind) {
	switch t {
	case TableCounters:
		x.HasCounters = true
	case TableMessages:
		x.HasMessages = true
	case TableIdempotency:
		x.HasIdem = true
	case TableEvents:
		x.HasEvents = true
	}
}

// chatViews sorts the views by chat that read no key or message id
// number, one after another: they run beside the numbering.
func (x *Index) chatViews(nc int32) {
	x.ackView(nc)
	x.AllocBySeq = make([]int32, x.Allocs.Len())
	for i := range x.AllocBySeq {
		x.AllocBySeq[i] = int32(i)
	}
	SortByKey(x.AllocBySeq, func(i int32) SortKey { return SortKey{Chat: x.Allocs.At(i).Chat, A: x.AllocSeq(i), B: x.AllocEnd(i)} })
	x.AllocSpan = Spans(x.AllocBySeq, nc, func(i int32) int32 { return x.Allocs.At(i).Chat })
	// Counting sorts keep invoke order within each chat.
	x.OpChatSpan, x.OpsByChat = bucket(x.Ops.Len(), int(nc), func(i int) int32 { return x.Ops.At(int32(i)).Chat })
	// Read in the records' order, a few percent of the operations:
	// picked out of opsByChat, every operation had been a cache miss
	// (before the Log kept each chat's records together, columns.Grouped).
	x.SyncSpan, x.SyncsByChat = bucket(x.Ops.Len(), int(nc), func(i int) int32 {
		if o := x.Ops.At(int32(i)); o.Fn == FnSync && o.Status == StOK {
			return o.Chat
		}
		return -1
	})
	x.countUnknownUntraced()
}

// keyViews sorts the views by key once keys are numbered, each on a
// goroutine of its own (they read the records and write their own fields).
func (x *Index) keyViews(nc int32, nk int) {
	parallel.RunAll([]func(){
		func() { x.finalViews(nc, nk) },
		func() { x.keysCreated(nk) },
		// A counting sort keeps invoke order within each key.
		func() {
			x.OpKeySpan, x.opsByKey = bucket(x.Ops.Len(), nk, func(i int) int32 { return x.Ops.At(int32(i)).Key })
		},
	})
}

// finalViews indexes the final tables: counters by chat, messages and
// events by (chat, seq), messages and idempotency records by key.
func (x *Index) finalViews(nc int32, nk int) {
	x.Counter = columns.Filled(int(nc), -1)
	var nMsgs, nEvents int
	for i := range x.Fin.Count() {
		switch x.Fin.At(i).Table {
		case TableMessages:
			nMsgs++
		case TableEvents:
			nEvents++
		}
	}
	x.Msgs, x.Events = make([]int32, 0, nMsgs), make([]int32, 0, nEvents)
	x.KeyMsg, x.KeyMsg2 = columns.Filled(nk, -1), map[int32]int32{}
	x.KeyIdem, x.KeyIdem2 = columns.Filled(nk, -1), map[int32]int32{}
	for i := range x.Fin.Count() {
		f := x.Fin.At(i)
		switch f.Table {
		case TableCounters:
			if x.Counter[f.Chat] < 0 {
				x.Counter[f.Chat] = int32(i)
			}
		case TableMessages:
			x.Msgs = append(x.Msgs, int32(i))
			if k := f.Key; k >= 0 {
				setFirstTwo(x.KeyMsg, x.KeyMsg2, k, int32(i))
			} else {
				x.KeylessMsgs++
				if x.KeylessMsgIn == nil {
					x.KeylessMsgIn = map[int32]int{}
				}
				x.KeylessMsgIn[f.Chat]++
			}
		case TableIdempotency:
			if f.Key >= 0 {
				setFirstTwo(x.KeyIdem, x.KeyIdem2, f.Key, int32(i))
			} else {
				x.KeylessIdems++
				if x.KeylessIdemIn == nil {
					x.KeylessIdemIn = map[int32]int{}
				}
				x.KeylessIdemIn[f.Chat]++
			}
		case TableEvents:
			x.Events = append(x.Events, int32(i))
		}
	}
	bySeqLine := func(i int32) SortKey {
		return SortKey{Chat: x.Fin.At(i).Chat, A: x.Fin.At(i).Seq, B: int64(x.Fin.At(i).Line)}
	}
	SortByKey(x.Msgs, bySeqLine)
	SortByKey(x.Events, bySeqLine)
	finChat := func(i int32) int32 { return x.Fin.At(i).Chat }
	x.MsgSpan = Spans(x.Msgs, nc, finChat)
	x.EventSpan = Spans(x.Events, nc, finChat)
}

// ackView sorts persist acks by (chat, seq, call).
func (x *Index) ackView(nc int32) {
	nAcks := 0
	for i := range x.Ops.Count() {
		if x.Ops.At(i).Fn == FnPersist && x.Ops.At(i).Status == StOK {
			nAcks++
		}
	}
	x.Acks = make([]int32, 0, nAcks)
	for i := range x.Ops.Count() {
		if x.Ops.At(i).Fn == FnPersist && x.Ops.At(i).Status == StOK {
			x.Acks = append(x.Acks, int32(i))
		}
	}
	SortByKey(x.Acks, func(i int32) SortKey { return SortKey{Chat: x.Ops.At(i).Chat, A: x.AckSeq(i), B: x.Call(i)} })
	x.AckSpan = Spans(x.Acks, nc, func(i int32) int32 { return x.Ops.At(i).Chat })
}

// keysCreated notes the keys some ack created (not a replay's).
func (x *Index) keysCreated(nk int) {
	x.KeyCreated = make([]bool, nk)
	for _, o := range x.Acks {
		if k := x.Ops.At(o).Key; k >= 0 && !x.IsDedup(o) {
			x.KeyCreated[k] = true
		}
	}
}

// setFirstTwo notes v as key k's first, or else as its second unless it
// has one.
func setFirstTwo(first []int32, second map[int32]int32, k, v int32) {
	if first[k] < 0 {
		first[k] = v
	} else if _, ok := second[k]; !ok {
		second[k] = v
	}
}

// ChatList renders up to 5 chat names.
func (x *Index) ChatList(cs []int32) string {
	names := make([]string, 0, min(len(cs), 5))
	for i, c := range cs {
		if i == 5 {
			names = append(names, fmt.Sprintf("and %d more", len(cs)-5))
			break
		}
		names = append(names, fmt.Sprintf("%q", x.ChatNames[c]))
	}
	return fmt.Sprint(names)
}

// LargestChatShare is the largest chat's share of the operations.
func (x *Index) LargestChatShare() float64 {
	if x.Ops.Len() == 0 {
		return 0
	}
	most := 0
	for c := range int32(len(x.ChatNames)) {
		lo, hi := Span(x.OpChatSpan, c)
		most = max(most, hi-lo)
	}
	return float64(most) / float64(x.Ops.Len())
}

// ClientScope reports whether keys are scoped per sender per chat
// (key_scope client or sender), not per chat.
func (x *Index) ClientScope() bool { return x.clientScope }
