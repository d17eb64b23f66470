package checker

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/chatseq/chatseq/checker/internal/columns"
	"github.com/chatseq/chatseq/checker/linearize"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/internal/timings"
)

// The index is built once per Check from a Log and shared by every
// invariant: the Log's compact records, and views of them sorted by chat,
// sequence and key.

type fnKind uint8

const (
	fnPersist fnKind = iota + 1
	fnSync
)

type opStatus uint8

const (
	stOpen opStatus = iota // invoked, never completed: counts as info
	stOK
	stFail
	stInfo
)

const (
	timeMin = math.MinInt64
	timeMax = math.MaxInt64 // the return of an operation whose outcome is unknown
)

// index is a Log with the sorted views every invariant shares.
type index struct {
	*Log

	// kinds caches kindsOf for kindsReject.
	kindsMu     sync.Mutex
	kinds       []linearize.Kind
	kindsReject bool

	// eventOrder is judged once: event_completeness notes what it
	// counts, and the findings judge or count it too.
	eventOrderOnce sync.Once
	eventOrderRes  eventOrderResult

	// The Log's records, in the blocks they were read into: gathering
	// them into one slice each copied a quarter of a run's memory at once
	// (columns.Chunked).
	ops    *columns.Chunked[op]
	allocs *columns.Chunked[alloc]
	fin    *columns.Chunked[cfin]

	// Sorted views; *Span[c]..*Span[c+1] is chat c's slice of each.
	acks        []int32 // persist-ok ops by (chat, seq, call)
	ackSpan     []int32
	msgs        []int32 // final messages by (chat, seq, line)
	msgSpan     []int32
	events      []int32 // final events by (chat, seq, line)
	eventSpan   []int32
	allocBySeq  []int32 // allocs by (chat, seq, end)
	allocSpan   []int32
	opsByChat   []int32 // ops in invoke order, per chat
	opChatSpan  []int32
	syncsByChat []int32 // syncs that completed ok, in invoke order, per chat
	syncSpan    []int32
	opsByKey    []int32 // persist ops in invoke order, per key
	opKeySpan   []int32
	counter     []int32 // per chat: index of its final counters line, -1
	keyMsg      []int32 // per key: first final message carrying it, -1
	keyIdem     []int32 // per key: first final idempotency record, -1
	keyCreated  []bool  // per key: some persist was acked as its new message
	nKeylessMsg int     // final messages without a key
	// keylessMsgIn counts them by chat: only their chat's operations of
	// unknown outcome may be theirs.
	keylessMsgIn map[int32]int
	// nKeylessIdem counts final idempotency records no key is known for:
	// under key_scope client, records without a sender that no single
	// sender's key claims (canonicalMaps).
	nKeylessIdem int
	// keylessIdemIn counts them by chat: only their chat's keys may be
	// theirs.
	keylessIdemIn map[int32]int
	// keyMsg2 and keyIdem2 map the keys a second final message or
	// idempotency record carries to it: rare (a failure), so not slices
	// by key, which held 8 bytes a key.
	keyMsg2, keyIdem2 map[int32]int32

	// hasCounters and the others: the table is present, with final lines
	// or a table_read line (read, even empty).
	hasCounters, hasMessages, hasIdem, hasEvents bool
	// readEmpty names the tables a table_read line says were read and
	// found empty, for the details of the invariants that read them.
	readEmpty map[tableKind]bool
	// read maps the tables a table_read line says were read to that
	// line: their content is known, a row not there is not there.
	read map[tableKind]int

	// clientScope: key_scope client; attributed: the keys a final line
	// without a sender was given by attribution (Log.attributed).
	clientScope bool
	attributed  map[int32]bool
	// recordsByChat: the final idempotency records by chat (recordsOf).
	recordsOnce   sync.Once
	recordsByChat map[int32][]int32
	// soleWriter: the history's clients are its chats' only writers (the
	// header's sole_writer, or Options.SoleWriter). Without it a message
	// no client of the history could have made is another writer's:
	// allowed, with a warning.
	soleWriter bool
	// initialCounter is every chat's counter before the run (the header's
	// "initial_counter", a chatseq extension; 0 without it).
	initialCounter uint64
	// unknownUntraced[c] counts chat c's persists whose outcome is unknown
	// and that traced no allocation: each may have allocated a sequence
	// whose answer never came back (a timeout on step 3).
	unknownUntraced []uint64

	warnMu sync.Mutex // invariants run concurrently and may warn
}

func (x *index) warn(format string, args ...any) {
	x.warnMu.Lock()
	defer x.warnMu.Unlock()
	x.warnings = append(x.warnings, fmt.Sprintf(format, args...))
}

// Accessors.

func (x *index) call(o int32) int64 { return x.ops.At(o).call }

// ret is when o's effect is known to be over: its completion for ok and
// fail, never for info and unfinished operations (open-ended).
func (x *index) ret(o int32) int64 {
	switch x.ops.At(o).status {
	case stOK, stFail:
		return x.ops.At(o).done
	}
	return timeMax
}

func (x *index) ackSeq(o int32) uint64 { return x.ops.At(o).seq }

func (x *index) ackID(o int32) uint32 { return x.ops.At(o).mid() }

// midName is an interned message id's text.
func (x *index) midName(id uint32) string { return x.keys.Get(x.midNames[id]) }

// keyText is an interned key's text.
func (x *index) keyText(k int32) string { return x.keys.Get(x.keyNames[k]) }

func (x *index) invLine(o int32) int { return int(x.ops.At(o).invLine) }

func (x *index) doneLine(o int32) int { return int(x.ops.At(o).doneLine) }

func (x *index) opLines(o int32) []int { return []int{x.invLine(o), x.doneLine(o)} }

// keyName is o's idempotency key ("" for a keyless persist or a sync).
func (x *index) keyName(o int32) string {
	if k := x.ops.At(o).key; k >= 0 {
		return x.keyText(k)
	}
	return ""
}

// after and limit are a sync's cursor and page size.
func (x *index) after(o int32) uint64 { return x.ops.At(o).seq }

func (x *index) limit(o int32) int { return int(x.ops.At(o).limit()) }

// syncBuf holds a caller's decoded sync answers, reused from one sync to
// the next.
type syncBuf struct{ seqs, ids, miss []uint64 }

// syncSeqsOf is the sequences sync o returned, decoded into buf.seqs (a
// slice of their own when it is nil), and false if it has no answer: for
// the invariants that need no message ids.
func (x *index) syncSeqsOf(o int32, buf *syncBuf) ([]uint64, bool) {
	r := x.ops.At(o).sync()
	if r < 0 {
		buf.seqs = buf.seqs[:0]
		return buf.seqs, false
	}
	code := x.syncSeqs.Get(x.syncs[r].seqs)
	if buf.seqs == nil {
		buf.seqs = make([]uint64, 0, columns.CountSeqs(code))
	}
	buf.seqs = columns.DecodeSeqs(buf.seqs[:0], code)
	return buf.seqs, true
}

// syncResult is what sync o returned: its sequences and message ids (as
// many as its line had; a count that differs is sync_completeness's
// failure), and false if it has no answer. The ids are hashes (compare
// them with midHash of an interned id). Both are decoded into buf, the
// caller's to reuse; into slices of their own when buf is nil.
func (x *index) syncResult(o int32, buf *syncBuf) (seqs []uint64, ids []uint64, ok bool) {
	if buf == nil {
		buf = &syncBuf{}
	}
	if _, ok := x.syncSeqsOf(o, buf); !ok {
		return buf.seqs, buf.ids[:0], false
	}
	ref := &x.syncs[x.ops.At(o).sync()]
	if ref.explicit {
		return buf.seqs, x.syncMids.Get(ref.mids), true
	}
	chat := x.ops.At(o).chat
	buf.ids = slices.Grow(buf.ids[:0], len(buf.seqs))
	for _, s := range buf.seqs {
		buf.ids = append(buf.ids, x.ackHash.at(chat, s))
	}
	mids := x.syncMids.Get(ref.mids)
	if len(mids) > 0 {
		buf.miss = columns.DecodeSeqs(buf.miss[:0], x.syncMiss.Get(ref.miss))
		for j, i := range buf.miss {
			buf.ids[i] = mids[j]
		}
	}
	return buf.seqs, buf.ids, true
}

func (x *index) allocSeq(a int32) uint64 { return x.allocs.At(a).seq }

func (x *index) allocEnd(a int32) int64 { return x.allocs.At(a).end }

// allocStartLines is the trace line plus, when the interval's start came
// from the operation's invoke, that invoke's line.
func (x *index) allocStartLines(a int32) []int {
	al := x.allocs.At(a)
	lines := []int{int(al.line)}
	if !al.hasStart && al.op >= 0 {
		lines = append(lines, x.invLine(al.op))
	}
	return lines
}

func (x *index) status(o int32) string {
	switch x.ops.At(o).status {
	case stOK:
		if x.ops.At(o).dedup() {
			return "ok(dedup)"
		}
		return "ok"
	case stFail:
		return "fail"
	case stInfo:
		return "info"
	}
	return "unfinished"
}

// errCode is o's completion error, or its status when it has none.
func (x *index) errCode(o int32) string {
	if e := x.ops.At(o).err(); e != 0 {
		return x.errNames[e]
	}
	return x.status(o)
}

func (x *index) isDedup(o int32) bool {
	return x.ops.At(o).dedup()
}

func span(sp []int32, c int32) (int, int) { return int(sp[c]), int(sp[c+1]) }

// maxSpan is the largest chat's share of a sorted view.
func maxSpan(sp []int32) int {
	m := int32(0)
	for c := 1; c < len(sp); c++ {
		m = max(m, sp[c]-sp[c-1])
	}
	return int(m)
}

// hasMsgHashFrom reports whether one chat's msgs hold seq with a message
// id of hash h, looking from index from of them on (searchFrom); it
// returns where the sequence's messages begin, for the next look-up.
func (x *index) hasMsgHashFrom(msgs []int32, from int, seq uint64, h uint64) (found bool, at int32, next int) {
	i, _ := columns.SearchFrom(msgs, from, seq, func(m int32, t uint64) int { return cmp.Compare(x.fin.At(m).Seq, t) })
	at = -1
	for j := i; j < len(msgs) && x.fin.At(msgs[j]).Seq == seq; j++ {
		at = msgs[j]
		if x.midHash[x.fin.At(at).MessageID] == h {
			return true, at, i
		}
	}
	return false, at, i
}

// buildIndex sorts the Log's views; the Log becomes the index's. Its steps
// that touch different records run side by side: after the writers stop,
// this is most of what bench waits for.
// tablesRead are the history's table_read lines (none for a history cut
// short: its final state is not judged). soleWriter is the header's
// sole_writer as the options leave it.
func buildIndex(l *Log, h history.Header, tablesRead []history.TableRead, clientScope, soleWriter bool) *index {
	x := &index{Log: l, soleWriter: soleWriter, initialCounter: h.InitialCounter()}
	// Nothing is interned any more: the maps' memory goes back before the
	// invariants take theirs.
	l.chatIDs, l.senderIDs, l.errIDs = nil, nil, nil
	l.ackHash, l.acked = l.acked.hashes(), recentAcks{}
	// Operations still open at the end never completed (unfinished): where
	// each process's open one was is not needed any more, in the dense
	// slice or the map.
	l.open = nil
	clear(l.outstanding)
	done := timings.Phase("index: records numbered densely")
	x.clientScope = clientScope
	x.ops, x.allocs = l.compactRecords()
	x.fin = &l.fin
	done()
	// Keys and message ids are numbered on one core while the views that
	// need no key are sorted on the other: numbering had left a core idle.
	done = timings.Phase("index: numbering, chat views")
	nc := int32(len(x.chatNames))
	runAll([]func(){
		func() {
			var sl *senderlessRule
			if clientScope {
				sl = &senderlessRule{soleWriter: soleWriter, initialCounter: x.initialCounter, ops: x.ops}
			}
			keyMap, midMap := l.canonicalMaps(sl)
			runAll([]func(){
				func() { renumberOps(x.ops, keyMap, midMap) },
				func() { renumberFinals(x.fin, keyMap, midMap) },
			})
		},
		func() { x.chatViews(nc) },
	})
	done()
	if l.disorder > 1 {
		l.warn("events earlier than an event before them: %d", l.disorder)
	}
	x.attributed = l.attributed // (known once keys are numbered)
	done = timings.Phase("index: finals, key views")
	x.indexFinals(tablesRead)
	x.keyViews(nc, len(x.keyNames))
	done()
	return x
}

// compactRecords numbers the Log's operations and allocations densely,
// each chat's still one after another, and points each allocation at its
// operation's new number.
func (l *Log) compactRecords() (*columns.Chunked[op], *columns.Chunked[alloc]) {
	opAt := l.ops.Renumbering()
	var ops columns.Chunked[op]
	var allocs columns.Chunked[alloc]
	runAll([]func(){
		func() { ops = l.ops.Compact() },
		func() {
			allocs = l.allocs.Compact()
			allocs.Each(func(a *alloc) {
				if a.op >= 0 {
					a.op = opAt.Of(a.op)
				}
			})
		},
	})
	return &ops, &allocs
}

// countUnknownUntraced fills unknownUntraced.
func (x *index) countUnknownUntraced() {
	traced := make([]bool, x.ops.Len())
	x.allocs.Each(func(a *alloc) {
		if a.op >= 0 {
			traced[a.op] = true
		}
	})
	x.unknownUntraced = make([]uint64, len(x.chatNames))
	i := 0
	x.ops.Each(func(o *op) {
		if o.fn == fnPersist && (o.status == stInfo || o.status == stOpen) && !traced[i] {
			x.unknownUntraced[o.chat]++
		}
		i++
	})
}

func (x *index) indexFinals(tablesRead []history.TableRead) {
	x.readEmpty, x.read = map[tableKind]bool{}, map[tableKind]int{}
	for _, t := range tablesRead {
		x.markPresent(tableOf(t.Table))
		x.read[tableOf(t.Table)] = t.Line
		if t.Lines == 0 {
			x.readEmpty[tableOf(t.Table)] = true
		}
	}
	seenCounter := map[int32]bool{}
	for i := range x.fin.Count() {
		f := x.fin.At(i)
		x.markPresent(f.Table)
		if f.Table == tableCounters {
			if seenCounter[f.chat] {
				x.warn("line %d: a second counters line for chat %q: the first is used", f.Line, x.chatNames[f.chat])
			}
			seenCounter[f.chat] = true
		}
	}
}

// wasRead reports whether a table_read line names table t.
func (x *index) wasRead(t tableKind) bool {
	_, ok := x.read[t]
	return ok
}

// markPresent notes that table t is present: read, or holding lines.
func (x *index) markPresent(t tableKind) {
	switch t {
	case tableCounters:
		x.hasCounters = true
	case tableMessages:
		x.hasMessages = true
	case tableIdempotency:
		x.hasIdem = true
	case tableEvents:
		x.hasEvents = true
	}
}

// chatViews sorts the views by chat that read no key or message id
// number, one after another: they run beside the numbering.
func (x *index) chatViews(nc int32) {
	x.ackView(nc)
	x.allocBySeq = make([]int32, x.allocs.Len())
	for i := range x.allocBySeq {
		x.allocBySeq[i] = int32(i)
	}
	sortByKey(x.allocBySeq, func(i int32) sortKey { return sortKey{chat: x.allocs.At(i).chat, a: x.allocSeq(i), b: x.allocEnd(i)} })
	x.allocSpan = spans(x.allocBySeq, nc, func(i int32) int32 { return x.allocs.At(i).chat })
	// Counting sorts keep invoke order within each chat.
	x.opChatSpan, x.opsByChat = bucket(x.ops.Len(), int(nc), func(i int) int32 { return x.ops.At(int32(i)).chat })
	// Read in the records' order, a few percent of the operations:
	// picked out of opsByChat, every operation had been a cache miss
	// (before the Log kept each chat's records together, columns.Grouped).
	x.syncSpan, x.syncsByChat = bucket(x.ops.Len(), int(nc), func(i int) int32 {
		if o := x.ops.At(int32(i)); o.fn == fnSync && o.status == stOK {
			return o.chat
		}
		return -1
	})
	x.countUnknownUntraced()
}

// keyViews sorts the views by key once keys are numbered, each on a
// goroutine of its own (they read the records and write their own fields).
func (x *index) keyViews(nc int32, nk int) {
	runAll([]func(){
		func() { x.finalViews(nc, nk) },
		func() { x.keysCreated(nk) },
		// A counting sort keeps invoke order within each key.
		func() {
			x.opKeySpan, x.opsByKey = bucket(x.ops.Len(), nk, func(i int) int32 { return x.ops.At(int32(i)).key })
		},
	})
}

// finalViews indexes the final tables: counters by chat, messages and
// events by (chat, seq), messages and idempotency records by key.
func (x *index) finalViews(nc int32, nk int) {
	x.counter = columns.Filled(int(nc), -1)
	var nMsgs, nEvents int
	for i := range x.fin.Count() {
		switch x.fin.At(i).Table {
		case tableMessages:
			nMsgs++
		case tableEvents:
			nEvents++
		}
	}
	x.msgs, x.events = make([]int32, 0, nMsgs), make([]int32, 0, nEvents)
	x.keyMsg, x.keyMsg2 = columns.Filled(nk, -1), map[int32]int32{}
	x.keyIdem, x.keyIdem2 = columns.Filled(nk, -1), map[int32]int32{}
	for i := range x.fin.Count() {
		f := x.fin.At(i)
		switch f.Table {
		case tableCounters:
			if x.counter[f.chat] < 0 {
				x.counter[f.chat] = int32(i)
			}
		case tableMessages:
			x.msgs = append(x.msgs, int32(i))
			if k := f.key; k >= 0 {
				setFirstTwo(x.keyMsg, x.keyMsg2, k, int32(i))
			} else {
				x.nKeylessMsg++
				if x.keylessMsgIn == nil {
					x.keylessMsgIn = map[int32]int{}
				}
				x.keylessMsgIn[f.chat]++
			}
		case tableIdempotency:
			if f.key >= 0 {
				setFirstTwo(x.keyIdem, x.keyIdem2, f.key, int32(i))
			} else {
				x.nKeylessIdem++
				if x.keylessIdemIn == nil {
					x.keylessIdemIn = map[int32]int{}
				}
				x.keylessIdemIn[f.chat]++
			}
		case tableEvents:
			x.events = append(x.events, int32(i))
		}
	}
	bySeqLine := func(i int32) sortKey {
		return sortKey{chat: x.fin.At(i).chat, a: x.fin.At(i).Seq, b: int64(x.fin.At(i).Line)}
	}
	sortByKey(x.msgs, bySeqLine)
	sortByKey(x.events, bySeqLine)
	finChat := func(i int32) int32 { return x.fin.At(i).chat }
	x.msgSpan = spans(x.msgs, nc, finChat)
	x.eventSpan = spans(x.events, nc, finChat)
}

// ackView sorts persist acks by (chat, seq, call).
func (x *index) ackView(nc int32) {
	nAcks := 0
	for i := range x.ops.Count() {
		if x.ops.At(i).fn == fnPersist && x.ops.At(i).status == stOK {
			nAcks++
		}
	}
	x.acks = make([]int32, 0, nAcks)
	for i := range x.ops.Count() {
		if x.ops.At(i).fn == fnPersist && x.ops.At(i).status == stOK {
			x.acks = append(x.acks, int32(i))
		}
	}
	sortByKey(x.acks, func(i int32) sortKey { return sortKey{chat: x.ops.At(i).chat, a: x.ackSeq(i), b: x.call(i)} })
	x.ackSpan = spans(x.acks, nc, func(i int32) int32 { return x.ops.At(i).chat })
}

// keysCreated notes the keys some ack created (not a replay's).
func (x *index) keysCreated(nk int) {
	x.keyCreated = make([]bool, nk)
	for _, o := range x.acks {
		if k := x.ops.At(o).key; k >= 0 && !x.isDedup(o) {
			x.keyCreated[k] = true
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

// chatList renders up to 5 chat names.
func (x *index) chatList(cs []int32) string {
	names := make([]string, 0, min(len(cs), 5))
	for i, c := range cs {
		if i == 5 {
			names = append(names, fmt.Sprintf("and %d more", len(cs)-5))
			break
		}
		names = append(names, fmt.Sprintf("%q", x.chatNames[c]))
	}
	return fmt.Sprint(names)
}

// largestChatShare is the largest chat's share of the operations.
func (x *index) largestChatShare() float64 {
	if x.ops.Len() == 0 {
		return 0
	}
	most := 0
	for c := range int32(len(x.chatNames)) {
		lo, hi := span(x.opChatSpan, c)
		most = max(most, hi-lo)
	}
	return float64(most) / float64(x.ops.Len())
}

// runAll runs tasks on GOMAXPROCS goroutines.
func runAll(tasks []func()) {
	forEach(runtime.GOMAXPROCS(0), len(tasks), func(i int) { tasks[i]() })
}

// forEach calls f(0..n-1) on up to workers goroutines.
func forEach(workers, n int, f func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(i)
			}
		})
	}
	wg.Wait()
}
