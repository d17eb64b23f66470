package checker

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/chatseq/chatseq/history"
)

// Limits that keep porcupine bounded. Its cache holds a bitset of n/8 bytes
// per entry, so memory grows as n² on a linear history and faster when it
// backtracks; a million-operation chat cannot be checked this way (192k
// operations took 23s, 1.9M gave up at 13.5GB). A chat that could not
// finish even a linear pass within its worker's share of the memory budget
// is not tried; a larger budget (Options.PorcupineMemory, --lin-memory)
// decides larger chats. The exact order checkers cover the others.
const (
	visualizeMaxOps   = 20_000
	visualizeMaxBytes = 64 << 20
	hintMaxLines      = 50
	// DefaultPorcupineMemory is porcupine's cache budget over all its
	// workers unless Options.PorcupineMemory says otherwise: with two
	// workers, chats of up to 45k operations are tried.
	DefaultPorcupineMemory = 768 << 20
)

// porcupineMemory is the bytes porcupine's caches may hold over all
// workers.
func porcupineMemory(opt Options) int64 {
	if opt.PorcupineMemory > 0 {
		return opt.PorcupineMemory
	}
	return DefaultPorcupineMemory
}

// porcupineEntryBytes is what one step that porcupine caches may hold on a
// chat of n operations: a bitset of n/8 bytes, a state, and two treap
// paths of ~1.5·log2(n) 64-byte nodes.
func porcupineEntryBytes(n int) int64 {
	return int64(n/8 + 2*64*int(1.5*math.Log2(float64(n+2))) + 256)
}

// porcupineMaxOps is the largest chat porcupine can take a linear pass
// through (one cached step per operation) within mem bytes.
func porcupineMaxOps(mem int64) int {
	lo, hi := 0, 1<<30
	for lo < hi {
		n := lo + (hi-lo+1)/2
		if int64(n)*porcupineEntryBytes(n) <= mem {
			lo = n
		} else {
			hi = n - 1
		}
	}
	return lo
}

// chatOutcome is porcupine's verdict on one chat.
type chatOutcome struct {
	chat   int32
	ops    int
	status Status
	why    string // unknown: "timeout", "memory", "size", "budget"
	detail string
	lines  []int
	viz    string // visualization file written, or why not
	// others: sequences taken as other writers' (exact checker, passed
	// chats of a history without sole_writer).
	others []uint64
}

func checkLinearizability(x *index, con history.Contract, opt Options) (Result, int, int) {
	v := newVerdict(NameLinearizability)
	reject := con.KeyReuse == history.KeyReuseReject
	type job struct{ chat, n int32 }
	var jobs []job
	perChat := make([]int32, len(x.chatNames))
	for o, k := range x.kindsOf(reject) {
		if k != 0 {
			perChat[x.ops.at(int32(o)).chat]++
		}
	}
	for c, n := range perChat {
		if n > 0 {
			jobs = append(jobs, job{int32(c), n})
		}
	}
	if len(jobs) == 0 {
		v.notApplicable("no persist or sync operations to linearize")
		return v.result(), 0, 0
	}
	// Small chats first: what they leave of the budget goes to larger ones.
	slices.SortStableFunc(jobs, func(a, b job) int { return cmp.Compare(a.n, b.n) })

	budget := opt.LinearizabilityTimeout
	if budget <= 0 {
		budget = defaultLinearizabilityLimit
	}
	workers := min(runtime.GOMAXPROCS(0), len(jobs))
	memPerWorker := porcupineMemory(opt) / int64(workers)
	maxOps := porcupineMaxOps(memPerWorker)

	outcomes := make([]chatOutcome, len(jobs))
	queue := make([]int, len(jobs))
	for i := range queue {
		queue[i] = i
	}
	fallbacks := 0 // chats the exact checker left to porcupine
	if !opt.Porcupine {
		if jobs[len(jobs)-1].n >= 1<<18 && x.largestChatShare() > 0.25 {
			// Collecting first sets the heap's goal from what is live,
			// not from the index's temporaries, before the exact checker
			// allocates its model: the 1M-persist hot chat's check peaked
			// at 0.84 to 0.94 GB resident without, 0.83 to 0.85 GB with
			// (and, decided beside the other invariants, 0.79 to 0.81
			// without against 0.74 to 0.75 GB with).
			runtime.GC()
		}
		forEach(workers, len(jobs), func(i int) {
			m, _ := x.linearizabilityHistory(jobs[i].chat, con, false)
			outcomes[i] = x.exactLinearizability(jobs[i].chat, m, opt.VisualizeDir)
		})
		queue = queue[:0]
		for i := range outcomes {
			if outcomes[i].why == "fallback" {
				outcomes[i] = chatOutcome{}
				queue = append(queue, i)
			}
		}
		fallbacks = len(queue)
	}
	deadline := time.Now().Add(budget)
	run := func(queue []int) {
		var mu sync.Mutex
		next := 0
		var wg sync.WaitGroup
		for range min(workers, len(queue)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					mu.Lock()
					q := next
					next++
					mu.Unlock()
					if q >= len(queue) {
						return
					}
					i := queue[q]
					j := jobs[i]
					if int(j.n) > maxOps {
						outcomes[i] = chatOutcome{chat: j.chat, ops: int(j.n), status: Unknown, why: "size"}
						continue
					}
					// A fair share of what is left: the time remaining over
					// the chats not yet started, times the workers.
					left := time.Until(deadline)
					share := min(left, left*time.Duration(workers)/time.Duration(len(queue)-q))
					m, ops := x.linearizabilityHistory(j.chat, con, true)
					outcomes[i] = x.runPorcupine(j.chat, m, ops, share, memPerWorker, opt.VisualizeDir)
				}
			}()
		}
		wg.Wait()
	}
	// Chats that ran out of their share get what the others left over;
	// a round that decides none of them ends the retries.
	for len(queue) > 0 && time.Until(deadline) > time.Millisecond {
		run(queue)
		var again []int
		for _, i := range queue {
			if outcomes[i].status == Unknown && outcomes[i].why == "timeout" {
				again = append(again, i)
			}
		}
		if len(again) == len(queue) {
			break
		}
		queue = again
	}
	for i := range outcomes {
		if outcomes[i].status == "" { // never started
			outcomes[i] = chatOutcome{chat: jobs[i].chat, ops: int(jobs[i].n), status: Unknown, why: "budget"}
		}
	}

	undecided := map[string][]chatOutcome{}
	decided, passed, passedOps := 0, 0, 0
	for _, o := range outcomes {
		switch o.status {
		case Fail:
			decided++
			v.fail(o.lines, "chat %q is not linearizable: %s%s", x.chatNames[o.chat], o.detail, o.viz)
		case Unknown:
			undecided[o.why] = append(undecided[o.why], o)
		case Pass:
			if x.keylessMsgIn[o.chat] > 0 {
				// Its final messages without a key could be any of its
				// operations of unknown outcome: a relaxation, which may
				// hide a violation, so it never passes.
				o.status, o.why = Unknown, "keyless"
				undecided[o.why] = append(undecided[o.why], o)
				continue
			}
			fallthrough
		default:
			decided++
			passed++
			passedOps += o.ops
			if len(o.others) > 0 {
				x.warn("chat %q: %s no persist of the history could have committed in time; the header does not say \"sole_writer\", so they are taken as other writers' messages (chatseq check --sole-writer judges them as violations)",
					x.chatNames[o.chat], seqList(o.others))
			}
		}
	}
	for _, why := range []string{"size", "budget", "timeout", "memory", "keyless"} {
		group := undecided[why]
		if len(group) == 0 {
			continue
		}
		cs := make([]int32, len(group))
		biggest := group[0]
		for i, o := range group {
			cs[i] = o.chat
			if o.ops > biggest.ops {
				biggest = o
			}
		}
		switch why {
		case "size":
			v.unknown("%s too large for porcupine (over %d operations, the most a %d MB share allows; largest %q with %d): order invariants were checked exactly instead",
				plural(len(group), "chat"), maxOps, memPerWorker>>20, x.chatNames[biggest.chat], biggest.ops)
		case "budget":
			v.unknown("time budget %s spent before %s could start: %s", budget, plural(len(group), "chat"), x.chatList(cs))
		case "timeout":
			v.unknown("porcupine undecided within its share of the %s budget on %s: %s", budget, plural(len(group), "chat"), x.chatList(cs))
		case "memory":
			v.unknown("porcupine stopped at its memory bound on %s: %s", plural(len(group), "chat"), x.chatList(cs))
		case "keyless":
			v.unknown("no violation found on %s, but their final messages without a key (or, under key_scope client, without a sender that an ack or a single sender attributes) could be any of their operations of unknown outcome, so that is not a pass: %s",
				plural(len(group), "chat"), x.chatList(cs))
		}
	}
	undecidedN := len(jobs) - decided
	if passed > 0 {
		how := "decided exactly"
		switch {
		case opt.Porcupine:
			how = "by porcupine"
		case fallbacks > 0:
			how = fmt.Sprintf("decided exactly, %s by porcupine", plural(fallbacks, "chat"))
		}
		v.pass("%s with %s linearizable (%s)", plural(passed, "chat"), plural(passedOps, "operation"), how)
	}
	return v.result(), decided, undecidedN
}

// linKindOf classifies operation o for the model, 0 if it is left out.
// Failed operations other than a rejection are left out: they had no
// effect and are legal anywhere. Syncs that did not complete ok tell
// nothing. An operation of unknown outcome is left out when it cannot have
// taken effect: another persist of its key was acked as the key's new
// message (in the model two commits of one key are never legal, so this
// loses nothing), or the final table, which lists keys, has no message
// with its key. Left in, each would let porcupine try it at every point of
// the history.
// kindsOf is every operation's linKindOf, worked out once in the records'
// order: asked per chat, in each chat's invoke order, every look-up was a
// cache miss, three times an operation, a fifth of the check after a run
// (before the Log kept each chat's records together, grouped.go).
func (x *index) kindsOf(reject bool) []linKind {
	x.kindsMu.Lock()
	defer x.kindsMu.Unlock()
	if x.kinds == nil || x.kindsReject != reject {
		kinds := make([]linKind, x.ops.len())
		for o := range x.ops.count() {
			kinds[o] = x.linKindOf(o, reject)
		}
		x.kinds, x.kindsReject = kinds, reject
	}
	return x.kinds
}

func (x *index) linKindOf(o int32, reject bool) linKind {
	st := x.ops.at(o).status
	switch {
	case x.ops.at(o).fn == fnSync:
		if st == stOK {
			return lSync
		}
	case x.ops.at(o).key < 0:
		// keyless persist: cannot be modelled (warned when indexed)
	case st == stOK:
		if x.isDedup(o) {
			return lDedup
		}
		return lNew
	case st == stFail:
		if reject && x.isRejection(o) {
			return lRejected
		}
	case x.keyCreated[x.ops.at(o).key]:
	case x.keyMsg[x.ops.at(o).key] >= 0 || !x.hasMessages || x.keylessMsgIn[x.ops.at(o).chat] > 0:
		return lInfo
	}
	return 0
}

// linearizabilityHistory builds chat c's model and its operations'
// intervals; porcupine's operations and the waits only with forPorcupine
// (the exact checker needs neither).
func (x *index) linearizabilityHistory(c int32, con history.Contract, forPorcupine bool) (*model, []porcupine.Operation) {
	m := &model{forbidden: con.Gaps == history.GapsForbidden, reject: con.KeyReuse == history.KeyReuseReject, maxSteps: -1, base: x.initialCounter, external: !x.soleWriter}
	lo, hi := span(x.opChatSpan, c)
	kinds := x.kindsOf(m.reject)
	// Sized for every operation rather than counted first: the few left
	// out cost less room than a pass of cache misses over the chat.
	n := int(hi - lo)
	slo, shi := span(x.syncSpan, c)
	nsync := int(shi - slo)
	m.ops = make([]linOp, 0, n)
	m.syncs = make([]linSync, 0, nsync)
	m.call, m.ret = make([]int64, 0, n), make([]int64, 0, n)
	if m.base > 0 {
		m.messagesRead = x.hasMessages
		m.preFinal, m.preRunKeySeq = map[uint64]uint64{}, map[int32]uint64{}
		flo, fhi := span(x.msgSpan, c)
		for _, i := range x.msgs[flo:fhi] {
			f := x.fin.at(i)
			if f.Seq <= m.base {
				m.preFinal[f.Seq] = x.midHash[f.MessageID]
				if f.key < 0 {
					m.preKeyless++ // some key's from before the run: perhaps a rejected one's
				}
			}
			if f.key >= 0 {
				m.preRunKeySeq[f.key] = f.Seq
			}
		}
		// An idempotency record is its message's: it shows one too.
		for _, r := range x.recordsOf(c) {
			if k := x.fin.at(r).key; k >= 0 {
				f := x.fin.at(r)
				if f.Seq <= m.base {
					if _, had := m.preFinal[f.Seq]; !had {
						m.preFinal[f.Seq] = x.midHash[f.MessageID]
					}
				}
				if _, had := m.preRunKeySeq[k]; !had {
					m.preRunKeySeq[k] = f.Seq
				}
			}
		}
	}
	// What the final state gives a key of the history is that key's
	// message: no other writer's, no other key's.
	for _, r := range x.recordsOf(c) {
		if f := x.fin.at(r); f.key >= 0 && x.keyUsed(f.key) {
			if m.owned == nil {
				m.owned = map[uint64]int32{}
			}
			m.owned[f.Seq] = f.key
		}
	}
	if x.hasMessages {
		flo, fhi := span(x.msgSpan, c)
		for _, i := range x.msgs[flo:fhi] {
			if f := x.fin.at(i); f.key >= 0 && x.keyUsed(f.key) {
				if m.owned == nil {
					m.owned = map[uint64]int32{}
				}
				m.owned[f.Seq] = f.key
			}
		}
	}
	if m.external && x.hasMessages {
		m.tableRead = true
		m.foreign = map[uint64]uint64{}
		flo, fhi := span(x.msgSpan, c)
		for _, i := range x.msgs[flo:fhi] {
			f := x.fin.at(i)
			if k := f.key; k < 0 || !x.keyUsed(k) {
				m.foreign[f.Seq] = x.midHash[f.MessageID]
			}
		}
	}
	for _, o := range x.opsByChat[lo:hi] {
		kind := kinds[o]
		if kind == 0 {
			continue
		}
		lop := linOp{kind: kind, op: o, key: x.ops.at(o).key}
		switch kind {
		case lSync:
			y := linSync{after: x.after(o), limit: x.limit(o)}
			if seqs, ids, ok := x.syncResult(o, nil); ok {
				y.seqs = seqs
				y.ids = ids // decoded for the model, which only reads them
				if len(ids) != len(seqs) {
					y.ids = make([]uint64, len(seqs)) // all 0: sync_completeness fails it
				}
				y.answered = len(seqs)
				if y.limit > 0 && len(seqs) == y.limit {
					y.top = seqs[len(seqs)-1]
				}
				// Messages at or below the initial counter predate the
				// run: what a sync shows of them is not the model's.
				if m.base > 0 && slices.IsSorted(seqs) {
					k, _ := slices.BinarySearch(seqs, m.base+1)
					y.pre, y.preIDs = y.seqs[:k], y.ids[:k]
					y.seqs, y.ids = y.seqs[k:], y.ids[k:]
				}
			}
			lop.sync = int32(len(m.syncs))
			m.syncs = append(m.syncs, y)
		case lNew, lDedup:
			lop.seq, lop.id = x.ackSeq(o), x.midHash[x.ackID(o)]
		case lInfo:
			if fm := x.keyMsg[lop.key]; fm >= 0 {
				lop.seq, lop.id = x.fin.at(fm).Seq, x.midHash[x.fin.at(fm).MessageID]
			} else if fr := x.keyIdem[lop.key]; fr >= 0 && !x.hasMessages {
				// Without the messages table, the key's record says where
				// its message is (a record is written with its message).
				lop.seq, lop.id = x.fin.at(fr).Seq, x.midHash[x.fin.at(fr).MessageID]
			}
		}
		if kind != lSync {
			lop.hash = x.ops.at(o).payload
		}
		m.ops = append(m.ops, lop)
		m.call, m.ret = append(m.call, x.call(o)), append(m.ret, x.ret(o))
	}
	if !forPorcupine {
		return m, nil
	}
	if m.forbidden && m.external {
		for i := range m.ops {
			switch o := &m.ops[i]; o.kind {
			case lDedup:
				m.observed = append(m.observed, o.seq)
			case lSync:
				m.observed = append(m.observed, m.syncOf(o).seqs...)
			}
		}
		slices.Sort(m.observed)
		m.observed = slices.Compact(m.observed)
	}
	clients := map[int]int{}
	ops := make([]porcupine.Operation, len(m.ops))
	for i := range m.ops {
		p := int(x.ops.at(m.ops[i].op).process)
		cl, ok := clients[p]
		if !ok {
			cl = len(clients)
			clients[p] = cl
		}
		ops[i] = porcupine.Operation{ClientId: cl, Input: int32(i), Call: m.call[i], Return: m.ret[i]}
	}
	linkWaits(m, ops)
	return m, ops
}

// stringHash stands for a message id or payload hash in the model, which
// only ever compares them: 0 for none. Two distinct values collide with
// probability 2^-64, which could only hide a mismatch, never invent one.
func stringHash(s string) uint64 {
	if s == "" {
		return 0
	}
	return nonZero(maphash.String(hashSeed, s))
}

// nonZero keeps 0 for "no string": a hash that is 0 becomes 1.
func nonZero(h uint64) uint64 {
	if h == 0 {
		return 1
	}
	return h
}

var hashSeed = maphash.MakeSeed()

// linkWaits fills the wait list of each persist that commits a known
// sequence (see model): the syncs concurrent with it whose answer covers
// that sequence yet leaves it out. One sweep in call order meets every
// overlapping pair once. An operation of unknown outcome never ends, so it
// stops pairing once a sync has shown its sequence and returned: a later
// sync that leaves it out fails whatever the order, and waits only ever
// prune the search, so omitting one never changes a verdict.
func linkWaits(m *model, ops []porcupine.Operation) {
	order := make([]int32, len(ops))
	until := make([]int64, len(ops)) // when an operation stops pairing
	sorted := make([]bool, len(ops)) // a sync's answer is ascending
	m.waits = make([][]int32, len(ops))
	for i := range order {
		order[i] = int32(i)
		until[i] = ops[i].Return
		sorted[i] = m.ops[i].kind != lSync || slices.IsSorted(m.syncOf(&m.ops[i]).seqs)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(ops[a].Call, ops[b].Call) })
	var persists, syncs []int32 // started, still pairing
	prune := func(active []int32, now int64) []int32 {
		kept := active[:0]
		for _, i := range active {
			if until[i] >= now {
				kept = append(kept, i)
			}
		}
		return kept
	}
	pair := func(p, s int32) {
		po, so := &m.ops[p], m.syncOf(&m.ops[s])
		if po.seq <= so.after || !sorted[s] {
			return
		}
		if so.top > 0 && po.seq > so.top {
			return
		}
		if _, shown := slices.BinarySearch(so.seqs, po.seq); shown {
			until[p] = min(until[p], ops[s].Return)
			return
		}
		m.waits[p] = append(m.waits[p], s)
	}
	for _, i := range order {
		now := ops[i].Call
		switch k := m.ops[i].kind; {
		case k == lNew || k == lInfo && m.ops[i].seq != 0:
			syncs = prune(syncs, now)
			for _, s := range syncs {
				pair(i, s)
			}
			persists = append(persists, i)
		case k == lSync:
			persists = prune(persists, now)
			for _, p := range persists {
				pair(p, i)
			}
			syncs = append(syncs, i)
		}
	}
}

func (x *index) porcupineModel(m *model) porcupine.Model {
	equal := func(a, b any) bool { return equalStates(a.(*lstate), b.(*lstate)) }
	hash := func(s any) uint64 { return s.(*lstate).h }
	describeOp := func(in, _ any) string { return m.describe(x, int(in.(int32))) }
	describeState := func(s any) string { return m.describeState(s.(*lstate)) }
	if !m.nondeterministic() {
		return porcupine.Model{
			Init: func() any { return m.initialState() },
			Step: func(s, in, _ any) (bool, any) {
				next := m.step(s.(*lstate), in.(int32))
				if len(next) == 0 {
					return false, nil
				}
				return true, next[0]
			},
			Equal: equal, Hash: hash, DescribeOperation: describeOp, DescribeState: describeState,
		}
	}
	// A sync that returns sequences no committed message holds binds them
	// to pending commits in every way it can: a set of states per step.
	nm := porcupine.NondeterministicModel{
		Init: func() []any {
			var out []any
			for _, s := range m.initialStates() {
				out = append(out, s)
			}
			return out
		},
		Step: func(s, in, _ any) []any {
			next := m.step(s.(*lstate), in.(int32))
			out := make([]any, len(next))
			for i, n := range next {
				out[i] = n
			}
			return out
		},
		Equal: equal, Hash: hash, DescribeOperation: describeOp, DescribeState: describeState,
	}
	return nm.ToModel()
}

// runPorcupine decides chat c within timeout and mem bytes of porcupine's
// cache; the caller leaves out chats too large for mem.
func (x *index) runPorcupine(c int32, m *model, ops []porcupine.Operation, timeout time.Duration, mem int64, vizDir string) chatOutcome {
	out := chatOutcome{chat: c, ops: len(ops)}
	if timeout < time.Millisecond {
		out.status, out.why = Unknown, "budget"
		return out
	}
	if a, b, why, found := m.contradiction(); found {
		// No order can satisfy both: porcupine would have to exhaust every
		// interleaving to say so.
		out.status = Fail
		if a == b {
			out.detail = fmt.Sprintf("line %d %s can take effect in no order: %s", x.invLine(m.ops[a].op), m.describe(x, a), why)
			out.lines = x.opLines(m.ops[a].op)
			return out
		}
		out.detail = fmt.Sprintf("no order satisfies both line %d %s and line %d %s: %s",
			x.invLine(m.ops[a].op), m.describe(x, a), x.invLine(m.ops[b].op), m.describe(x, b), why)
		out.lines = append(x.opLines(m.ops[a].op), x.opLines(m.ops[b].op)...)
		return out
	}
	// Each successful step may become a cache entry.
	m.maxSteps = int(mem / porcupineEntryBytes(len(ops)))
	model := x.porcupineModel(m)
	res, info := porcupine.CheckOperationsVerbose(model, ops, timeout)
	switch {
	case m.aborted:
		out.status, out.why = Unknown, "memory"
	case res == porcupine.Unknown:
		out.status, out.why = Unknown, "timeout"
	case res == porcupine.Ok:
		out.status = Pass
	default:
		out.status = Fail
		out.detail, out.lines = x.linearizabilityHint(m, ops, info)
		m.maxSteps = -1 // replaying for the visualization must not hit the bound
		if vizDir != "" {
			out.viz = x.visualize(c, model, info, len(ops), vizDir)
		}
	}
	return out
}

// contradiction finds two operations that are illegal together in every
// order: two persists acked as new for one key or at one sequence, or a
// replay that disagrees with the persist that created its key (only that
// persist can have committed the key; operations of unknown outcome on it
// are left out).
func (m *model) contradiction() (a, b int, why string, found bool) {
	if a, b, why, found := m.preRunContradiction(); found {
		if a < 0 {
			a = b // the final table: the operation alone
		}
		return int(a), int(b), why, true
	}
	byKey := map[int32]int{}
	bySeq := map[uint64]int{}
	for i, o := range m.ops {
		if o.kind != lNew {
			continue
		}
		if j, dup := byKey[o.key]; dup {
			return j, i, "a key is created once", true
		}
		if j, dup := bySeq[o.seq]; dup {
			return j, i, "a sequence holds one message", true
		}
		byKey[o.key], bySeq[o.seq] = i, i
	}
	// A key from before the run holds one message (its replay at or below
	// the initial counter says which): another answer, or its final line
	// elsewhere, contradicts it.
	preRun := map[int32]int{}
	for i, o := range m.ops {
		if (o.kind == lDedup || o.kind == lInfo) && o.seq != 0 && o.seq <= m.base {
			if _, seen := preRun[o.key]; !seen {
				preRun[o.key] = i
			}
		}
	}
	for i, o := range m.ops {
		j, ok := preRun[o.key]
		if ok && (o.kind == lDedup || o.kind == lInfo) && o.seq != 0 && (o.seq != m.ops[j].seq || o.id != m.ops[j].id) {
			return j, i, "the key's message predates the run: one message", true
		}
	}
	for i, o := range m.ops {
		if o.kind != lDedup {
			continue
		}
		j, ok := byKey[o.key]
		if !ok {
			continue
		}
		c := m.ops[j]
		if c.seq != o.seq || c.id != o.id {
			return j, i, "a replay answers the message that created the key", true
		}
		if m.reject && c.hash != 0 && o.hash != 0 && c.hash != o.hash {
			return j, i, "under key_reuse reject, other content is rejected, not replayed", true
		}
	}
	return 0, 0, "", false
}

// linearizabilityHint names the longest linearizable prefix porcupine found
// and the operations none of which could extend it.
func (x *index) linearizabilityHint(m *model, ops []porcupine.Operation, info porcupine.LinearizationInfo) (string, []int) {
	var longest []int
	if parts := info.PartialLinearizations(); len(parts) > 0 {
		for _, p := range parts[0] {
			if len(p) > len(longest) {
				longest = p
			}
		}
	}
	in := make([]bool, len(ops))
	for _, id := range longest {
		in[id] = true
	}
	// The frontier: operations left out that could have come next, i.e.
	// invoked before every other left-out operation returned.
	minRet := int64(timeMax)
	for id, op := range ops {
		if !in[id] {
			minRet = min(minRet, op.Return)
		}
	}
	var frontier []int
	for id, op := range ops {
		if !in[id] && op.Call <= minRet {
			frontier = append(frontier, id)
		}
	}
	var lines []int
	add := func(id int) {
		if len(lines)+2 <= hintMaxLines {
			lines = append(lines, x.opLines(m.ops[id].op)...)
		}
	}
	var descs []string
	for i, id := range frontier {
		add(id)
		d := fmt.Sprintf("line %d %s", x.invLine(m.ops[id].op), m.describe(x, id))
		// A persist held back by a sync that did not show it: that sync
		// is part of the evidence.
		for _, w := range m.waitOf(int32(id)) {
			if !in[w] {
				add(int(w))
				d += fmt.Sprintf(" (which the sync at line %d did not show)", x.doneLine(m.ops[w].op))
			}
		}
		if i < 3 {
			descs = append(descs, d)
		}
	}
	for k := max(0, len(longest)-5); k < len(longest); k++ {
		add(longest[k])
	}
	more := ""
	if len(frontier) > 3 {
		more = fmt.Sprintf(" and %d more", len(frontier)-3)
	}
	d := fmt.Sprintf("the longest linearizable prefix has %d of %d operations; none of the operations that could come next fits: %s%s",
		len(longest), len(ops), strings.Join(descs, "; "), more)
	return d, lines
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// visualize writes porcupine's HTML for chat c, within visualizeMaxBytes.
func (x *index) visualize(c int32, model porcupine.Model, info porcupine.LinearizationInfo, n int, dir string) string {
	if n > visualizeMaxOps {
		return fmt.Sprintf(" (no visualization: %d operations, over %d)", n, visualizeMaxOps)
	}
	var buf bytes.Buffer
	w := &cappedWriter{w: &buf, left: visualizeMaxBytes}
	if err := porcupine.Visualize(model, info, w); err != nil {
		return fmt.Sprintf(" (no visualization: %v)", err)
	}
	name := filepath.Join(dir, fmt.Sprintf("linearizability-%s.html", unsafeName.ReplaceAllString(x.chatNames[c], "_")))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Sprintf(" (no visualization: %v)", err)
	}
	if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
		return fmt.Sprintf(" (no visualization: %v)", err)
	}
	return " (visualization: " + name + ")"
}

var errTooLarge = errors.New("visualization over the size cap")

type cappedWriter struct {
	w    *bytes.Buffer
	left int
}

func (c *cappedWriter) Write(p []byte) (int, error) {
	if len(p) > c.left {
		return 0, errTooLarge
	}
	c.left -= len(p)
	return c.w.Write(p)
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

// seqList names a few sequences: "sequences 3, 5 and 2 more".
func seqList(seqs []uint64) string {
	var b strings.Builder
	b.WriteString("sequence")
	if len(seqs) > 1 {
		b.WriteString("s")
	}
	for i, q := range seqs {
		if i == 5 {
			fmt.Fprintf(&b, " and %d more", len(seqs)-5)
			break
		}
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " %d", q)
	}
	return b.String()
}

// keyUsed reports whether some persist of the history used key k.
func (x *index) keyUsed(k int32) bool {
	lo, hi := span(x.opKeySpan, k)
	return hi > lo
}

// recordsOf is chat c's final idempotency records, grouped once on first
// use (chats are decided concurrently).
func (x *index) recordsOf(c int32) []int32 {
	x.recordsOnce.Do(func() {
		x.recordsByChat = map[int32][]int32{}
		for i := range x.fin.count() {
			if f := x.fin.at(i); f.Table == tableIdempotency {
				x.recordsByChat[f.chat] = append(x.recordsByChat[f.chat], i)
			}
		}
	})
	return x.recordsByChat[c]
}
