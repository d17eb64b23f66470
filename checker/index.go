package checker

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/chatseq/chatseq/history"
)

// The index is built once per Check and shared by every invariant. It holds
// int32 references into the history rather than copies of its events, so a
// million-operation history costs tens of megabytes here, not hundreds.

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

// op is one operation: an invoke paired with the next completion of the
// same process.
type op struct {
	inv    int32 // index of the invoke in Events
	done   int32 // index of the completion; -1 if none
	chat   int32
	key    int32 // scoped idempotency key of a persist; -1 for syncs
	fn     fnKind
	status opStatus
	// dedup: an ok answered as a replay (its completion's dedup), kept
	// here because the checkers ask for every operation and the event is
	// a cache miss away.
	dedup bool
}

// alloc is one traced counter allocation: it returned during [start, end].
type alloc struct {
	ev    int32 // the trace event (its Time is the end)
	op    int32 // the operation it was handed to; -1 if none was outstanding
	chat  int32
	start int64
}

// scopedKey is the scope of an idempotency key. ADR-004 keys the
// idempotency table by (chat_id, client_message_id), so keys are scoped per
// chat. ADR-001 also says "unique per client per chat": scoping per sender
// would add the sender here (finals would then need a sender field too).
type scopedKey struct {
	chat int32
	key  string
}

func scopeOf(chat int32, _ /* sender */, key string) scopedKey {
	return scopedKey{chat: chat, key: key}
}

type index struct {
	h   *history.History
	ev  []history.Event
	fin []history.Final

	chatNames []string
	chatIDs   map[string]int32

	ops    []op
	allocs []alloc

	keyIDs []map[string]int32 // by chat: a key's id in its scope
	// persistsIn counts each chat's persist invokes, to size its keyIDs.
	persistsIn map[string]int
	keyNames   []string
	keyChat    []int32

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
	opsByKey    []int32 // persist ops in invoke order, per key
	opKeySpan   []int32
	counter     []int32 // per chat: index of its final counters line, -1
	keyMsg      []int32 // per key: first final message carrying it, -1
	keyMsg2     []int32 // per key: a second one, -1
	keyIdem     []int32 // per key: first final idempotency record, -1
	keyIdem2    []int32 // per key: a second one, -1
	finChat     []int32 // per final line: its chat
	finKey      []int32 // per final messages/idempotency line: its key, -1
	keyCreated  []bool  // per key: some persist was acked as its new message
	nKeylessMsg int     // final messages without a key

	hasCounters, hasMessages, hasIdem, hasEvents bool

	// initialCounter is every chat's counter before the run (the header's
	// "initial_counter", a chatseq extension; 0 without it).
	initialCounter uint64
	// unknownUntraced[c] counts chat c's persists whose outcome is unknown
	// and that traced no allocation: each may have allocated a sequence
	// whose answer never came back (a timeout on step 3).
	unknownUntraced []uint64

	warnMu   sync.Mutex // invariants run concurrently and may warn
	warnings []string
}

func (x *index) warn(format string, args ...any) {
	x.warnMu.Lock()
	defer x.warnMu.Unlock()
	x.warnings = append(x.warnings, fmt.Sprintf(format, args...))
}

func (x *index) chat(name string) int32 {
	if id, ok := x.chatIDs[name]; ok {
		return id
	}
	id := int32(len(x.chatNames))
	x.chatIDs[name] = id
	x.chatNames = append(x.chatNames, name)
	return id
}

// keyID numbers scoped keys densely. A map per chat keyed by the string
// alone takes the runtime's fast path for string keys: a map keyed by the
// struct hashed both fields generically, a sixth of a many-chat check.
func (x *index) keyID(k scopedKey) int32 {
	for int(k.chat) >= len(x.keyIDs) {
		x.keyIDs = append(x.keyIDs, nil)
	}
	ids := x.keyIDs[k.chat]
	if ids == nil {
		ids = make(map[string]int32, x.persistsIn[x.chatNames[k.chat]])
		x.keyIDs[k.chat] = ids
	}
	if id, ok := ids[k.key]; ok {
		return id
	}
	id := int32(len(x.keyNames))
	ids[k.key] = id
	x.keyNames = append(x.keyNames, k.key)
	x.keyChat = append(x.keyChat, k.chat)
	return id
}

// Accessors.

func (x *index) invEv(o int32) *history.Event { return &x.ev[x.ops[o].inv] }

func (x *index) doneEv(o int32) *history.Event {
	if d := x.ops[o].done; d >= 0 {
		return &x.ev[d]
	}
	return nil
}

func (x *index) call(o int32) int64 { return x.ev[x.ops[o].inv].Time }

// ret is when o's effect is known to be over: its completion for ok and
// fail, never for info and unfinished operations (open-ended).
func (x *index) ret(o int32) int64 {
	switch x.ops[o].status {
	case stOK, stFail:
		return x.ev[x.ops[o].done].Time
	}
	return timeMax
}

func (x *index) ackSeq(o int32) uint64 { return x.ev[x.ops[o].done].Seq }

func (x *index) ackID(o int32) string { return x.ev[x.ops[o].done].MessageID }

func (x *index) invLine(o int32) int { return x.ev[x.ops[o].inv].Line }

func (x *index) doneLine(o int32) int {
	if d := x.ops[o].done; d >= 0 {
		return x.ev[d].Line
	}
	return 0
}

func (x *index) opLines(o int32) []int { return []int{x.invLine(o), x.doneLine(o)} }

func (x *index) allocSeq(a int32) uint64 { return x.ev[x.allocs[a].ev].Seq }

func (x *index) allocEnd(a int32) int64 { return x.ev[x.allocs[a].ev].Time }

// allocStartLines is the trace line plus, when the interval's start came
// from the operation's invoke, that invoke's line.
func (x *index) allocStartLines(a int32) []int {
	al := x.allocs[a]
	lines := []int{x.ev[al.ev].Line}
	if !x.ev[al.ev].HasStart && al.op >= 0 {
		lines = append(lines, x.invLine(al.op))
	}
	return lines
}

func (x *index) status(o int32) string {
	switch x.ops[o].status {
	case stOK:
		if x.ev[x.ops[o].done].Dedup {
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
	if d := x.doneEv(o); d != nil && d.Error != "" {
		return d.Error
	}
	return x.status(o)
}

func (x *index) isDedup(o int32) bool {
	return x.ops[o].dedup
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

// msgAt returns the range of chat c's final messages at seq.
func (x *index) msgAt(c int32, seq uint64) (int, int) {
	lo, hi := span(x.msgSpan, c)
	s := x.msgs[lo:hi]
	i, _ := slices.BinarySearchFunc(s, seq, func(m int32, t uint64) int { return cmp.Compare(x.fin[m].Seq, t) })
	j := i
	for j < len(s) && x.fin[s[j]].Seq == seq {
		j++
	}
	return lo + i, lo + j
}

// hasMsg reports whether chat c's final messages hold (seq, id).
func (x *index) hasMsg(c int32, seq uint64, id string) (found bool, at int32) {
	i, j := x.msgAt(c, seq)
	at = -1
	for ; i < j; i++ {
		at = x.msgs[i]
		if x.fin[at].MessageID == id {
			return true, at
		}
	}
	return false, at
}

func buildIndex(h *history.History) *index {
	x := &index{h: h, ev: h.Events, fin: h.Finals, chatIDs: map[string]int32{}}
	// Sizing up front: appending a million elements one by one allocates
	// about five times the final size in abandoned backing arrays.
	invokes, persists, traces := 0, 0, 0
	x.persistsIn = map[string]int{}
	for i := range h.Events {
		switch e := &h.Events[i]; e.Kind {
		case history.KindInvoke:
			invokes++
			if e.F == history.FPersist {
				persists++
				x.persistsIn[e.Chat]++
			}
		case history.KindTrace:
			traces++
		}
	}
	x.ops = make([]op, 0, invokes)
	x.allocs = make([]alloc, 0, traces)
	// Final lines usually name the keys persists already used.
	x.keyNames = make([]string, 0, persists)
	x.keyChat = make([]int32, 0, persists)
	x.initialCounter = initialCounterOf(h.Header)
	x.pairOperations()
	x.indexFinals()
	x.buildViews()
	x.countUnknownUntraced()
	return x
}

// initialCounterOf reads the header's "initial_counter" extension.
func initialCounterOf(h history.Header) uint64 {
	raw, ok := h.Extra["initial_counter"]
	if !ok {
		return 0
	}
	v, err := strconv.ParseUint(raw, 10, 64)
	if err != nil {
		return 0
	}
	return v
}

// countUnknownUntraced fills unknownUntraced.
func (x *index) countUnknownUntraced() {
	traced := make([]bool, len(x.ops))
	for _, a := range x.allocs {
		if a.op >= 0 {
			traced[a.op] = true
		}
	}
	x.unknownUntraced = make([]uint64, len(x.chatNames))
	for i, o := range x.ops {
		if o.fn == fnPersist && (o.status == stInfo || o.status == stOpen) && !traced[i] {
			x.unknownUntraced[o.chat]++
		}
	}
}

// pairOperations pairs each invoke with the next completion of the same
// process and attributes each allocate trace to the operation its process
// has outstanding.
func (x *index) pairOperations() {
	outstanding := map[int]int32{}
	lastTime := int64(timeMin)
	disorder := 0
	for i := range x.ev {
		e := &x.ev[i]
		if e.Time < lastTime {
			if disorder == 0 {
				x.warn("line %d: time %d is earlier than the event before it; events should be in time order", e.Line, e.Time)
			}
			disorder++
		}
		lastTime = max(lastTime, e.Time)
		switch e.Kind {
		case history.KindInvoke:
			var fn fnKind
			switch e.F {
			case history.FPersist:
				fn = fnPersist
			case history.FSync:
				fn = fnSync
			default:
				x.warn("line %d: invoke of unknown f %q ignored", e.Line, e.F)
				continue
			}
			if prev, ok := outstanding[e.Process]; ok {
				x.warn("line %d: process %d invoked again while its operation from line %d was outstanding; that one counts as unfinished", e.Line, e.Process, x.invLine(prev))
			}
			o := op{inv: int32(i), done: -1, chat: x.chat(e.Chat), key: -1, fn: fn}
			if fn == fnPersist {
				if e.Key == "" {
					x.warn("line %d: persist without key: left out of key-based invariants", e.Line)
				} else {
					o.key = x.keyID(scopeOf(o.chat, e.Sender, e.Key))
				}
			}
			outstanding[e.Process] = int32(len(x.ops))
			x.ops = append(x.ops, o)
		case history.KindOK, history.KindFail, history.KindInfo:
			oi, ok := outstanding[e.Process]
			if !ok {
				x.warn("line %d: %s for process %d, which has no outstanding operation: ignored", e.Line, e.Kind, e.Process)
				continue
			}
			delete(outstanding, e.Process)
			o := &x.ops[oi]
			inv := &x.ev[o.inv]
			if e.F != "" && e.F != inv.F {
				x.warn("line %d: completion f %q does not match its invoke's %q (line %d)", e.Line, e.F, inv.F, inv.Line)
			}
			if e.Chat != "" && e.Chat != inv.Chat {
				x.warn("line %d: completion chat %q does not match its invoke's %q (line %d)", e.Line, e.Chat, inv.Chat, inv.Line)
			}
			o.done = int32(i)
			switch e.Kind {
			case history.KindOK:
				o.status, o.dedup = stOK, e.Dedup
			case history.KindFail:
				o.status = stFail
			default:
				o.status = stInfo
			}
		case history.KindTrace:
			if e.F != history.FAllocate {
				x.warn("line %d: trace of unknown f %q ignored", e.Line, e.F)
				continue
			}
			a := alloc{ev: int32(i), op: -1, chat: x.chat(e.Chat), start: e.Start}
			oi, ok := outstanding[e.Process]
			if ok && x.ops[oi].fn != fnPersist {
				x.warn("line %d: allocation for process %d, whose outstanding operation (line %d) is not a persist", e.Line, e.Process, x.invLine(oi))
				ok = false
			}
			if ok {
				a.op = oi
				if !e.HasStart {
					a.start = x.call(oi)
				}
				if oc := x.invEv(oi).Chat; oc != e.Chat {
					x.warn("line %d: allocation on chat %q for process %d, whose outstanding operation (line %d) is on chat %q", e.Line, e.Chat, e.Process, x.invLine(oi), oc)
				}
			} else if !e.HasStart {
				// Without an owner or a start the allocation could have
				// begun at any time: assume the earliest, so that no order
				// violation is claimed on a guess.
				a.start = timeMin
				x.warn("line %d: allocation for process %d, which has no outstanding operation and no start", e.Line, e.Process)
			}
			if a.start > e.Time {
				x.warn("line %d: allocation starts at %d, after it returned at %d: its start is taken as %d", e.Line, a.start, e.Time, e.Time)
				a.start = e.Time
			}
			x.allocs = append(x.allocs, a)
		case history.KindFinal:
			x.warn("line %d: final line among events ignored (finals belong in History.Finals)", e.Line)
		}
	}
	if disorder > 1 {
		x.warn("%d events are earlier than an event before them", disorder)
	}
}

func (x *index) indexFinals() {
	seenCounter := map[int32]bool{}
	x.finChat = make([]int32, len(x.fin))
	x.finKey = filled(len(x.fin), -1)
	for i := range x.fin {
		f := &x.fin[i]
		c := x.chat(f.Chat)
		x.finChat[i] = c
		switch f.Table {
		case history.TableCounters:
			x.hasCounters = true
			if seenCounter[c] {
				x.warn("line %d: a second counters line for chat %q: the first is used", f.Line, f.Chat)
			}
			seenCounter[c] = true
		case history.TableMessages:
			x.hasMessages = true
			if f.Key != "" {
				x.finKey[i] = x.keyID(scopeOf(c, "", f.Key))
			}
		case history.TableIdempotency:
			x.hasIdem = true
			x.finKey[i] = x.keyID(scopeOf(c, "", f.Key))
		case history.TableEvents:
			x.hasEvents = true
		default:
			x.warn("line %d: final line of unknown table %q ignored", f.Line, f.Table)
		}
	}
}

// buildViews sorts the per-chat and per-key views once.
func (x *index) buildViews() {
	nc, nk := int32(len(x.chatNames)), len(x.keyNames)
	x.counter = filled(int(nc), -1)
	var nMsgs, nEvents, nAcks int
	for i := range x.fin {
		switch x.fin[i].Table {
		case history.TableMessages:
			nMsgs++
		case history.TableEvents:
			nEvents++
		}
	}
	for i := range x.ops {
		if x.ops[i].fn == fnPersist && x.ops[i].status == stOK {
			nAcks++
		}
	}
	x.msgs, x.events, x.acks = make([]int32, 0, nMsgs), make([]int32, 0, nEvents), make([]int32, 0, nAcks)
	x.keyMsg, x.keyMsg2 = filled(nk, -1), filled(nk, -1)
	x.keyIdem, x.keyIdem2 = filled(nk, -1), filled(nk, -1)
	for i := range x.fin {
		f := &x.fin[i]
		switch f.Table {
		case history.TableCounters:
			if c := x.finChat[i]; x.counter[c] < 0 {
				x.counter[c] = int32(i)
			}
		case history.TableMessages:
			x.msgs = append(x.msgs, int32(i))
			if k := x.finKey[i]; k >= 0 {
				setFirstTwo(x.keyMsg, x.keyMsg2, k, int32(i))
			} else {
				x.nKeylessMsg++
			}
		case history.TableIdempotency:
			setFirstTwo(x.keyIdem, x.keyIdem2, x.finKey[i], int32(i))
		case history.TableEvents:
			x.events = append(x.events, int32(i))
		}
	}
	bySeqLine := func(i int32) sortKey {
		return sortKey{chat: x.finChat[i], a: x.fin[i].Seq, b: int64(x.fin[i].Line)}
	}
	sortByKey(x.msgs, bySeqLine)
	sortByKey(x.events, bySeqLine)
	finChat := func(i int32) int32 { return x.finChat[i] }
	x.msgSpan = spans(x.msgs, nc, finChat)
	x.eventSpan = spans(x.events, nc, finChat)

	x.keyCreated = make([]bool, nk)
	for i := range x.ops {
		if x.ops[i].fn == fnPersist && x.ops[i].status == stOK {
			x.acks = append(x.acks, int32(i))
			if k := x.ops[i].key; k >= 0 && !x.isDedup(int32(i)) {
				x.keyCreated[k] = true
			}
		}
	}
	sortByKey(x.acks, func(i int32) sortKey { return sortKey{chat: x.ops[i].chat, a: x.ackSeq(i), b: x.call(i)} })
	opChat := func(i int32) int32 { return x.ops[i].chat }
	x.ackSpan = spans(x.acks, nc, opChat)

	x.allocBySeq = make([]int32, len(x.allocs))
	for i := range x.allocBySeq {
		x.allocBySeq[i] = int32(i)
	}
	sortByKey(x.allocBySeq, func(i int32) sortKey { return sortKey{chat: x.allocs[i].chat, a: x.allocSeq(i), b: x.allocEnd(i)} })
	x.allocSpan = spans(x.allocBySeq, nc, func(i int32) int32 { return x.allocs[i].chat })

	// Counting sorts keep invoke order within each chat and key.
	x.opChatSpan, x.opsByChat = bucket(len(x.ops), int(nc), func(i int) int32 { return x.ops[i].chat })
	x.opKeySpan, x.opsByKey = bucket(len(x.ops), nk, func(i int) int32 { return x.ops[i].key })
}

// sortKey orders a view: by chat, then a, then b, then index. Sorting
// these small records in place of comparing through the history's large
// structs keeps the sort in cache; input that is already in order (final
// tables usually are) is detected in one pass and left alone.
type sortKey struct {
	a    uint64
	b    int64
	chat int32
	idx  int32
}

func compareKeys(p, q sortKey) int {
	return cmp.Or(cmp.Compare(p.chat, q.chat), cmp.Compare(p.a, q.a), cmp.Compare(p.b, q.b), cmp.Compare(p.idx, q.idx))
}

func sortByKey(idx []int32, key func(int32) sortKey) {
	ks := make([]sortKey, len(idx))
	sorted := true
	for j, i := range idx {
		ks[j] = key(i)
		ks[j].idx = i
		if j > 0 && compareKeys(ks[j-1], ks[j]) > 0 {
			sorted = false
		}
	}
	if sorted {
		return
	}
	slices.SortFunc(ks, compareKeys)
	for j := range ks {
		idx[j] = ks[j].idx
	}
}

func filled(n int, v int32) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = v
	}
	return s
}

func setFirstTwo(first, second []int32, k, v int32) {
	switch {
	case first[k] < 0:
		first[k] = v
	case second[k] < 0:
		second[k] = v
	}
}

// spans returns offsets such that sorted[sp[c]:sp[c+1]] are chat c's items;
// sorted must be ordered by chat.
func spans(sorted []int32, nchats int32, chatOf func(int32) int32) []int32 {
	sp := make([]int32, nchats+1)
	for _, v := range sorted {
		sp[chatOf(v)+1]++
	}
	for c := int32(0); c < nchats; c++ {
		sp[c+1] += sp[c]
	}
	return sp
}

// bucket is a stable counting sort of 0..n-1 by group (-1 = left out).
func bucket(n, groups int, groupOf func(int) int32) (sp, items []int32) {
	sp = make([]int32, groups+1)
	for i := 0; i < n; i++ {
		if g := groupOf(i); g >= 0 {
			sp[g+1]++
		}
	}
	for g := 0; g < groups; g++ {
		sp[g+1] += sp[g]
	}
	items = make([]int32, sp[groups])
	next := slices.Clone(sp[:groups])
	for i := 0; i < n; i++ {
		if g := groupOf(i); g >= 0 {
			items[next[g]] = int32(i)
			next[g]++
		}
	}
	return sp, items
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
