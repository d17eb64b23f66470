package linearize

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/chatseq/chatseq/internal/termsafe"
)

// The sequential specification of one chat, for porcupine. A state is the
// set of committed messages, held twice (by sequence and by key) in
// persistent treaps with an incremental order-independent hash.
//
// Operations of unknown outcome (info, unfinished) are open-ended and stepped
// as "took effect": that is complete, not a guess. Not taking effect is
// equivalent to being linearized after every other operation, which the
// open-ended interval allows and where the step is always legal, so
// porcupine finds that case by placing the operation last. When the final
// table says which message the key got, the effect is that message, and it
// is not optional: the key's first persist linearized must make it.
//
// Otherwise, under gaps: allowed, the key is committed with its sequence not
// yet known: a *pending* commit. Its sequence is whatever free value the
// rest of the history needs, so it is decided when something observes it:
// a replay of the key binds it to the sequence answered, and a sync that
// returns a sequence no committed message holds binds it to one of the
// pending commits (each choice a separate state: the model is
// nondeterministic there). Until then every sync linearized after the
// commit that did not return it hid it, so its sequence lies outside the
// range that sync answered; a pending commit records those ranges, is
// bound only to a sequence outside them, and, bound or not, must hold a
// sequence of its own: after each step the pending commits must fit in
// distinct free sequences outside their ranges (checked exactly; see
// pendingFit). Under gaps: forbidden a commit takes the next sequence, so
// nothing is pending.
//
// An initial counter (the header's initial_counter) puts messages before
// the run at the sequences up to it: a run's new message is above it; a
// replay answering a sequence at or below it is of a key from before the
// run, committed from the start (initialState); what syncs return at or
// below it is left out of their answers (ChatModel in checker/internal/store).
//
// Porcupine linearizes eagerly: with many writers in flight around a read
// it would try every subset of them before the read, 2^writers states. So
// a persist that commits a known sequence (acked as new, or of unknown
// outcome with its message in the final table) waits for the concurrent
// syncs that did not show that sequence although it lies in the range they
// answer: committing before one of them would make that sync's step fail
// anyway, so refusing the commit until those syncs are linearized accepts
// exactly the same linearizations while porcupine no longer enumerates
// subsets. (An operation of unknown outcome refused here can still take
// effect later, or not at all.) The state
// therefore records which syncs are linearized — a function of porcupine's
// own linearized set, so it adds no states to its cache.

// Kind is what an operation did, as the model steps it.
type Kind uint8

const (
	KindNew      Kind = iota + 1 // persist ok, dedup=false
	KindDedup                    // persist ok, dedup=true
	KindInfo                     // persist of unknown outcome
	KindRejected                 // persist fail idempotency_key_reused (contract reject)
	KindSync                     // sync ok
)

// Op is one porcupine operation's input; porcupine gets its index. It
// is kept small (40 bytes, no pointers): a million-operation chat holds one
// per operation while it is decided. What only syncs need is in Sync.
type Op struct {
	Kind Kind
	Key  int32  // the key's number in the history
	Op   int32  // the operation's number in the history (History names it)
	Sync int32  // KindSync: index in Chat.Syncs
	Hash uint64 // hash of the payload_hash, 0 if none
	Seq  uint64 // KindNew, KindDedup: acked; KindInfo: the final table's, 0 if none
	ID   uint64 // hash of the message_id, 0 if none
}

// Sync is a sync's answer.
type Sync struct {
	After uint64
	Limit int
	// top: a full page answers up to its last sequence (0: not full, no
	// bound); answered: how many sequences it returned. seqs leaves out
	// those at or below the initial counter, which predate the run.
	Top      uint64
	Answered int
	Seqs     []uint64
	IDs      []uint64
	// pre, preIDs: what it returned at or below the initial counter
	// (preRunContradiction judges them).
	Pre, PreIDs []uint64
}

// hidRange is a range of sequences a sync answered, (lo, hi]: a pending
// commit linearized before that sync and not returned by it lies outside.
type hidRange struct{ lo, hi uint64 }

// pendingCommit is a key committed under gaps: allowed by an operation of
// unknown outcome whose sequence nothing has observed yet.
type pendingCommit struct {
	key    int32
	hash   uint64
	hidden []hidRange // sorted, disjoint, not touching
}

type lstate struct {
	seqs, keys *tnode
	synced     *tnode // linearized syncs, by index in model.ops
	nseq       int    // entries in seqs
	pending    []pendingCommit
	h          uint64
}

func seqHash(e entry) uint64 {
	return mix64(1 ^ e.seq*0x9e3779b97f4a7c15 ^ uint64(uint32(e.key))<<32 ^ e.id)
}

func keyHash(e entry) uint64 {
	return mix64(2 ^ e.seq*0xc2b2ae3d27d4eb4f ^ uint64(uint32(e.key))<<32 ^ e.id ^ mix64(e.hash))
}

func pendingHash(p *pendingCommit) uint64 {
	h := mix64(4 ^ uint64(uint32(p.key))<<32 ^ mix64(p.hash))
	for _, r := range p.hidden {
		h = mix64(h ^ r.lo*0x9e3779b97f4a7c15 ^ mix64(r.hi))
	}
	return h
}

// withSeq returns a copy of s with e under e.seq (replacing old if had).
func (s *lstate) withSeq(e entry, old entry, had bool) *lstate {
	n := *s
	if had {
		n.h ^= seqHash(old)
	} else {
		n.nseq++
	}
	n.h ^= seqHash(e)
	n.seqs = tput(s.seqs, e.seq, e)
	return &n
}

// withKey sets e under e.key in place; s must be a fresh copy.
func (s *lstate) withKey(e entry, old entry, had bool) {
	if had {
		s.h ^= keyHash(old)
	}
	s.h ^= keyHash(e)
	s.keys = tput(s.keys, uint64(e.key), e)
}

// commit records a message under both its sequence and its key.
func (s *lstate) commit(e entry) *lstate {
	oldK, hadK := tget(s.keys, uint64(e.key))
	oldS, hadS := tget(s.seqs, e.seq)
	n := s.withSeq(e, oldS, hadS)
	n.withKey(e, oldK, hadK)
	return n
}

// pendingOf is the index of key's pending commit, -1 if none.
func (s *lstate) pendingOf(key int32) int {
	for i := range s.pending {
		if s.pending[i].key == key {
			return i
		}
	}
	return -1
}

// withPending returns a copy of s whose pending commits are ps (a fresh
// slice the state now owns).
func (s *lstate) withPending(ps []pendingCommit) *lstate {
	n := *s
	for i := range s.pending {
		n.h ^= pendingHash(&s.pending[i])
	}
	for i := range ps {
		n.h ^= pendingHash(&ps[i])
	}
	n.pending = ps
	return &n
}

func equalStates(a, b *lstate) bool {
	return a == b || a.h == b.h && a.nseq == b.nseq &&
		slices.EqualFunc(a.pending, b.pending, func(p, q pendingCommit) bool {
			return p.key == q.key && p.hash == q.hash && slices.Equal(p.hidden, q.hidden)
		}) &&
		tequal(a.seqs, b.seqs) && tequal(a.keys, b.keys) && tequal(a.synced, b.synced)
}

// waited reports whether every sync in wait is linearized.
func (s *lstate) waited(wait []int32) bool {
	for _, w := range wait {
		if _, done := tget(s.synced, uint64(w)); !done {
			return false
		}
	}
	return true
}

// Chat is one chat's specification and operations.
type Chat struct {
	h    History
	name string

	Ops   []Op
	Syncs []Sync
	// waits holds, per operation, the syncs (indexes in ops) to linearize
	// before it (see above); only porcupine needs them, nil otherwise.
	waits     [][]int32
	Call, Ret []int64 // each operation's interval (ret timeMax: open-ended)
	Forbidden bool    // contract gaps: forbidden
	Base      uint64  // the header's initial_counter: sequences up to it predate the run
	// counter, when hasCounter, is the chat's final counter: the state
	// after the run, so no allocation of the run, and no commit, is above
	// it (SetFinalCounter).
	counter    uint64
	hasCounter bool
	// others: sorted sequences of other writers' final lines (SetOthers).
	others []uint64
	Reject bool // contract key_reuse: reject
	// external: the header does not say sole_writer, so writers outside the
	// history may commit messages (never with the history's keys): a sync
	// may show, and under gaps: forbidden a commit may follow, a message
	// no operation of the history made.
	External bool
	// tableRead: the final messages table was read: the state after the
	// run. Other writers' messages are then those of its lines whose key
	// no persist of the chat used (foreign: sequence to message id).
	TableRead bool
	Foreign   map[uint64]uint64
	Owned     *SeqKeys // sequences the final state gives the history's keys, to which key (nil: none)
	// messagesRead: the final messages table was read. preFinal holds its
	// lines at or below the initial counter (sequence to message id), and
	// preRunKeySeq the sequence of each key's line (for keys only
	// rejected; see preRunContradiction).
	MessagesRead bool
	PreFinal     map[uint64]uint64
	PreRunKeySeq map[int32]uint64
	// PreKeyless is the final messages lines at or below it whose key is
	// not known: with no key at all, or naming a key whose sender is not
	// known (key_scope client), which can be only a key of that text.
	PreKeyless []PreKeylessLine
	// PreKeylessRecords is the idempotency records at or below it without
	// a sender that cannot be attributed.
	PreKeylessRecords []PreKeylessLine
	rejOnly           map[int32]int32 // rejectedOnly's answer, once worked out
	// optional: preRunOptional's answer; preRunSlack: how many of them
	// can be from before the run (preRunContradiction works it out).
	optional    []int32
	optDone     bool
	preRunSlack int
	// observed: the sequences replays answered and syncs returned, sorted
	// (gaps: forbidden with other writers only).
	observed []uint64
	// steps counts successful steps, a bound on porcupine's cache entries;
	// past maxSteps (when not negative) every step fails so porcupine
	// unwinds, and aborted turns its verdict into unknown.
	steps, maxSteps int
	aborted         bool
	// alloc: the persists acked as new, by sequence (allocorder.go), once
	// worked out.
	alloc *allocOrder
	// anyFloor: 1 when some operation of unknown outcome has a floor
	// above the initial counter, -1 when none has, 0 not yet known.
	anyFloor int8
}

// emptyLike is a chat with m's contract, history, final state and
// settings and no operations: what a window of m's operations is checked
// on. Every per-operation field and every cache is left out (a cache
// worked out for m's operations would be wrong for the window's).
func (m *Chat) emptyLike() *Chat {
	w := *m
	w.Ops, w.Syncs, w.waits, w.Call, w.Ret = nil, nil, nil, nil, nil
	w.rejOnly, w.optional, w.optDone, w.preRunSlack = nil, nil, false, 0
	w.observed, w.alloc, w.anyFloor = nil, nil, 0
	w.steps, w.maxSteps, w.aborted = 0, -1, false
	return &w
}

// SetFinalCounter says the final counters table gives the chat's counter
// as v: a commit no one names the sequence of (an operation of unknown
// outcome's, a key a rejection proves) lies at or below it. A counter below
// the initial one bounds nothing here (other invariants fail it).
func (m *Chat) SetFinalCounter(v uint64) {
	if v >= m.Base {
		m.counter, m.hasCounter = v, true
	}
}

// SetOthers gives the sequences of final lines whose key no persist of the
// chat used: other writers' messages (or phantoms), where no commit of the
// history can be. A commit whose sequence no one names needs room outside
// them too (oracle seed 2189847: under a final counter of 2, seqs 1 and 2
// both held other keys' records).
func (m *Chat) SetOthers(seqs []uint64) {
	slices.Sort(seqs)
	m.others = slices.Compact(seqs)
}

// othersIn counts the others' sequences in (lo, hi] that s does not hold.
func (m *Chat) othersIn(s *lstate, lo, hi uint64) uint64 {
	a, _ := slices.BinarySearch(m.others, lo+1)
	var n uint64
	for _, q := range m.others[a:] {
		if q > hi {
			break
		}
		if _, used := tget(s.seqs, q); !used {
			n++
		}
	}
	return n
}

// isOther reports whether q is an other writer's sequence.
func (m *Chat) isOther(q uint64) bool {
	_, ok := slices.BinarySearch(m.others, q)
	return ok
}

// Top is the highest sequence a commit of the run can hold: the final
// counter, else no bound.
func (m *Chat) Top() uint64 {
	if m.hasCounter {
		return m.counter
	}
	return math.MaxUint64
}

// syncOf is sync o's answer.
func (m *Chat) SyncOf(o *Op) *Sync { return &m.Syncs[o.Sync] }

// waitOf is what operation i waits for, nil without waits.
func (m *Chat) waitOf(i int32) []int32 {
	if m.waits == nil {
		return nil
	}
	return m.waits[i]
}

// nondeterministic reports whether some step may have several outcomes:
// a pending commit can exist (gaps: allowed, an operation of unknown
// outcome with no final message).
func (m *Chat) nondeterministic() bool {
	if m.preRunSlack > 0 {
		return true // which optional keys are from before the run
	}
	if m.Forbidden && !m.External {
		return false
	}
	for i := range m.Ops {
		if m.Ops[i].Kind == KindInfo && m.Ops[i].Seq == 0 {
			return true
		}
	}
	return false
}

// initialState commits, from the start, the keys of messages from before
// the run: those a replay answers, or the final table holds, at a sequence
// at or below the initial counter (no commit of the run is there). They are
// kept by key only: syncs leave out what lies at or below the counter.
func (m *Chat) initialState() *lstate {
	return m.initialStates()[0]
}

// maxPreRunChoices bounds the keys whose origin (before the run or not)
// porcupine tries both ways; past it the chat is unknown.
const maxPreRunChoices = 8

// initialStates is the state before the run for each choice of the
// optional keys from before it (preRunOptional), at most preRunSlack of
// them: there is room for no more.
func (m *Chat) initialStates() []*lstate {
	base := m.baseState()
	opt := m.preRunOptional()
	if m.preRunSlack == 0 || len(opt) == 0 {
		return []*lstate{base}
	}
	if len(opt) > maxPreRunChoices {
		m.aborted = true
		return []*lstate{base}
	}
	var out []*lstate
	for mask := 0; mask < 1<<len(opt); mask++ {
		if bits.OnesCount(uint(mask)) > m.preRunSlack {
			continue
		}
		s := base
		for j, k := range opt {
			if mask&(1<<j) != 0 {
				n := *s
				n.withKey(entry{key: k}, entry{}, false)
				s = &n
			}
		}
		out = append(out, s)
	}
	return out
}

func (m *Chat) baseState() *lstate {
	s := &lstate{}
	if m.Base == 0 {
		return s
	}
	for k := range m.rejectedOnly() {
		// Only rejected: a key from before the run (its message and
		// content unknown; preRunContradiction checks there is room).
		n := *s
		n.withKey(entry{key: k}, entry{}, false)
		s = &n
	}
	for i := range m.Ops {
		o := &m.Ops[i]
		if (o.Kind == KindDedup || o.Kind == KindInfo) && o.Seq != 0 && o.Seq <= m.Base {
			old, had := tget(s.keys, uint64(o.Key))
			e := old
			if !had {
				e = entry{seq: o.Seq, key: o.Key, id: o.ID}
			}
			if m.Reject && o.Kind == KindDedup && e.hash == 0 {
				e.hash = o.Hash // its content, as its first replay says
			}
			n := *s
			n.withKey(e, old, had)
			s = &n
		}
	}
	return s
}

func (m *Chat) step(s *lstate, i int32) []*lstate {
	if m.maxSteps >= 0 && m.steps >= m.maxSteps {
		m.aborted = true
		return nil
	}
	next := m.apply(s, i)
	m.steps += len(next)
	return next
}

func one(ok bool, s *lstate) []*lstate {
	if !ok {
		return nil
	}
	return []*lstate{s}
}

func (m *Chat) apply(s *lstate, i int32) []*lstate {
	o := &m.Ops[i]
	switch o.Kind {
	case KindNew:
		if o.Seq <= m.Base || m.committed(s, o.Key) {
			return nil
		}
		if _, ok := tget(s.seqs, o.Seq); ok {
			return nil
		}
		if !s.waited(m.waitOf(i)) {
			return nil
		}
		if m.Forbidden {
			var ok bool
			if s, ok = m.fillTo(s, o.Seq); !ok {
				return nil
			}
		}
		return m.fit(s.commit(entry{seq: o.Seq, key: o.Key, id: o.ID, hash: o.Hash}))
	case KindDedup:
		return m.replay(s, o)
	case KindInfo:
		if m.committed(s, o.Key) {
			return one(true, s) // a retry of a committed key changes nothing
		}
		// A final line places the key's message at o.Seq: some persist of
		// the key made it, so the first of them linearized makes it there
		// or nowhere (a later one can always be moved before the others,
		// which are open-ended). Only without a final line is "no effect"
		// an outcome, found by placing the operation last.
		seq := o.Seq
		floor := m.floorOf(i) // it creates above what was acked before it
		if seq != 0 && seq <= floor {
			return nil
		}
		if m.Forbidden {
			next := m.Base + uint64(s.nseq) + 1
			switch {
			case seq == 0 && m.External:
				return m.commitAfterOthers(s, o, i, floor)
			case seq == 0 && (next <= floor || next > m.Top()):
				return one(true, s) // it cannot commit here: as if placed last
			case seq == 0:
				seq = next
			case seq < next:
				return nil // its sequence is another message's by now
			case seq > next:
				if !s.waited(m.waitOf(i)) {
					return nil
				}
				n, ok := m.fillTo(s, seq)
				if !ok {
					return nil // the sequences before it are not committed yet
				}
				return m.fit(n.commit(entry{seq: seq, key: o.Key, id: o.ID, hash: o.Hash}))
			}
		}
		if seq == 0 {
			pc := pendingCommit{key: o.Key, hash: o.Hash}
			if floor > m.Base {
				pc.hidden = []hidRange{{lo: m.Base, hi: floor}}
			}
			ps := append(slices.Clone(s.pending), pc)
			slices.SortFunc(ps, func(a, b pendingCommit) int { return int(a.key) - int(b.key) })
			if !m.hasCounter {
				return one(true, s.withPending(ps)) // room enough above any sequence
			}
			if fitted := m.fit(s.withPending(ps)); fitted != nil {
				return fitted
			}
			// No sequence up to the final counter is left for it, now
			// or later (room only shrinks): it took no effect.
			return one(true, s)
		}
		if _, used := tget(s.seqs, seq); used {
			return nil // its sequence is another message's
		}
		if !s.waited(m.waitOf(i)) {
			return nil // taking effect here fails a later sync; later it may
		}
		return m.fit(s.commit(entry{seq: seq, key: o.Key, id: o.ID, hash: o.Hash}))
	case KindRejected:
		if p := s.pendingOf(o.Key); p >= 0 {
			h := s.pending[p].hash
			return one(h == 0 || h != o.Hash, s)
		}
		e, ok := tget(s.keys, uint64(o.Key))
		if !ok || (e.hash != 0 && e.hash == o.Hash) {
			return nil
		}
		return one(true, s)
	case KindSync:
		var out []*lstate
		for _, n := range m.sync(s, m.SyncOf(o)) {
			if n == s {
				c := *s
				n = &c
			}
			self := uint64(i)
			n.synced = tput(n.synced, self, entry{})
			n.h ^= mix64(3 ^ self*0xd6e8feb86659fd93)
			out = append(out, n)
		}
		return out
	}
	return nil
}

// othersMayHold reports whether another writer's message can be at seq,
// with message id id (0: not seen).
func (m *Chat) othersMayHold(seq, id uint64) bool {
	if _, held := m.Owned.Get(seq); !m.External || seq <= m.Base || held {
		return false
	}
	if !m.TableRead {
		return true
	}
	fid, ok := m.Foreign[seq]
	return ok && (id == 0 || id == fid)
}

// otherShows reports whether an other writer's final line at seq
// (isOther) may be what a sync showed there with message id id: not when
// the final messages table, read, holds another id there.
func (m *Chat) otherShows(seq, id uint64) bool {
	if !m.isOther(seq) {
		return false
	}
	fid, ok := m.Foreign[seq]
	return !m.TableRead || !ok || id == 0 || id == fid
}

// mayHold reports whether key's message may be at seq: not when the
// final state gives seq to another key of the history, nor to a key no
// persist of the chat used (isOther: no commit of the history is there).
// A pending commit bound to a sync's sequence that an idempotency record
// of another key held passed under porcupine (oracle seed 16826497; the
// exact checker failed it).
func (m *Chat) mayHold(key int32, seq uint64) bool {
	k, held := m.Owned.Get(seq)
	return (!held || k == key) && !m.isOther(seq)
}

// record stores e, a message whose id was just seen: under its sequence,
// and under its key unless it is another writer's (key -1).
func (s *lstate) record(e entry) *lstate {
	if e.key < 0 {
		old, had := tget(s.seqs, e.seq)
		return s.withSeq(e, old, had)
	}
	return s.commit(e)
}

// maxExternalFill bounds the other writers' messages one step may
// materialize under gaps: forbidden; past it the chat is unknown.
const maxExternalFill = 1 << 16

// fillTo readies s for a commit at seq under gaps: forbidden: seq must be
// the next sequence, unless other writers (without sole_writer) committed
// the ones between, which this adds.
func (m *Chat) fillTo(s *lstate, seq uint64) (*lstate, bool) {
	next := m.Base + uint64(s.nseq) + 1
	if seq == next {
		return s, true
	}
	if seq < next || !m.External {
		return s, false
	}
	if seq-next > maxExternalFill {
		m.aborted = true
		return s, false
	}
	for q := next; q < seq; q++ {
		if !m.othersMayHold(q, 0) {
			return s, false
		}
		s = s.withSeq(entry{seq: q, key: -1, id: m.Foreign[q]}, entry{}, false)
	}
	return s, true
}

// commitAfterOthers steps, under gaps: forbidden with other writers, a
// persist of unknown outcome whose message no final line places: it takes
// the next sequence, or one that something observed after other writers
// took those before it (only an observed sequence can tell these apart).
func (m *Chat) commitAfterOthers(s *lstate, o *Op, i int32, floor uint64) []*lstate {
	next, top := m.Base+uint64(s.nseq)+1, m.Top()
	// Other writers' final lines hold their sequences: those from next on
	// were taken before this commit, which comes after them (oracle seed
	// 3481932: it took seq 1, an other writer's record).
	free := next
	for free <= top && m.isOther(free) {
		free++
	}
	var out []*lstate
	if free > floor && free <= top {
		if n, ok := m.fillTo(s, free); ok {
			out = m.fit(n.commit(entry{seq: free, key: o.Key, hash: o.Hash}))
		}
	}
	if s.waited(m.waitOf(i)) {
		k, _ := slices.BinarySearch(m.observed, max(free, floor)+1)
		for _, q := range m.observed[k:] {
			if q > top {
				break
			}
			if m.isOther(q) {
				continue
			}
			if n, ok := m.fillTo(s, q); ok {
				out = append(out, m.fit(n.commit(entry{seq: q, key: o.Key, hash: o.Hash}))...)
			}
		}
	}
	if len(out) == 0 && (free <= floor || free > top) {
		return one(true, s) // it cannot commit here: as if placed last
	}
	return out
}

// committed reports whether key holds a message, known or pending.
func (m *Chat) committed(s *lstate, key int32) bool {
	if _, ok := tget(s.keys, uint64(key)); ok {
		return true
	}
	return s.pendingOf(key) >= 0
}

// replay steps a persist answered dedup=true: its key was committed with
// the answered sequence and message.
func (m *Chat) replay(s *lstate, o *Op) []*lstate {
	if o.Seq == 0 {
		return nil
	}
	if p := s.pendingOf(o.Key); p >= 0 {
		// This answer binds the pending commit's sequence.
		pc := &s.pending[p]
		if m.Reject && pc.hash != 0 && o.Hash != 0 && pc.hash != o.Hash {
			return nil
		}
		if o.Seq <= m.Base || hides(pc.hidden, o.Seq) || !m.mayHold(o.Key, o.Seq) {
			return nil
		}
		if _, used := tget(s.seqs, o.Seq); used {
			return nil
		}
		n := s.withPending(slices.Delete(slices.Clone(s.pending), p, p+1))
		return m.fit(n.commit(entry{seq: o.Seq, key: o.Key, id: o.ID, hash: pc.hash}))
	}
	e, ok := tget(s.keys, uint64(o.Key))
	if !ok {
		return nil
	}
	if m.Reject && e.hash != 0 && o.Hash != 0 && e.hash != o.Hash {
		return nil // other content must be rejected, not replayed
	}
	if e.seq != o.Seq || e.id != 0 && e.id != o.ID {
		return nil
	}
	if e.id == o.ID {
		return one(true, s)
	}
	e.id = o.ID // first observation of a message_id
	return one(true, s.commit(e))
}

// sync steps a read: the committed sequences above after, ascending, the
// first limit of them, are exactly what was returned. A returned sequence
// no committed message holds binds a pending commit, in every way one can.
func (m *Chat) sync(s *lstate, o *Sync) []*lstate {
	if o.Limit > 0 && o.Answered > o.Limit {
		return nil
	}
	for i, q := range o.Seqs {
		if q <= o.After || (i > 0 && q <= o.Seqs[i-1]) {
			return nil
		}
	}
	var unknown []int  // indexes of returned sequences the model lacks
	var bindIDs []int  // indexes whose model entry lacks its message_id
	var bindAt []entry // those entries
	i, ok := 0, true
	tascend(s.seqs, o.After, func(k uint64, e entry) bool {
		for i < len(o.Seqs) && o.Seqs[i] < k {
			unknown = append(unknown, i)
			i++
		}
		if i == len(o.Seqs) {
			ok = o.Top > 0 && k > o.Top // a short page must have returned everything
			return false
		}
		if o.Seqs[i] != k {
			ok = false // k was skipped
			return false
		}
		switch {
		case e.id == 0:
			bindIDs, bindAt = append(bindIDs, i), append(bindAt, e)
		case e.id != o.IDs[i]:
			ok = false
			return false
		}
		i++
		return true
	})
	if !ok {
		return nil
	}
	for ; i < len(o.Seqs); i++ {
		unknown = append(unknown, i)
	}
	if len(unknown) > len(s.pending) && !m.External {
		return nil
	}
	n := s
	for j, idx := range bindIDs {
		e := bindAt[j]
		e.id = o.IDs[idx]
		n = n.record(e)
	}
	if len(unknown) == 0 && len(s.pending) == 0 {
		return []*lstate{n}
	}
	if m.Forbidden {
		// Only other writers can have made them: under gaps: forbidden
		// they committed the next sequences, in order.
		for _, idx := range unknown {
			q := o.Seqs[idx]
			if next := m.Base + uint64(n.nseq) + 1; q > next {
				// Those before it were other writers' too, below the
				// cursor (else it would have returned them).
				if q-1 > o.After {
					return nil
				}
				var ok bool
				if n, ok = m.fillTo(n, q); !ok {
					return nil
				}
			}
			if !m.othersMayHold(q, o.IDs[idx]) || q != m.Base+uint64(n.nseq)+1 {
				return nil
			}
			n = n.withSeq(entry{seq: q, key: -1, id: o.IDs[idx]}, entry{}, false)
		}
		return []*lstate{n}
	}
	// Each unknown sequence takes a distinct pending commit that may hold
	// it; those left were hidden by this sync.
	answered := hidRange{lo: o.After, hi: math.MaxUint64}
	if o.Top > 0 {
		answered.hi = o.Top
	}
	var out []*lstate
	used := make([]bool, len(s.pending))
	var bind func(u int, st *lstate)
	bind = func(u int, st *lstate) {
		if u == len(unknown) {
			var rest []pendingCommit
			for p := range s.pending {
				if !used[p] {
					pc := s.pending[p]
					pc.hidden = withRange(pc.hidden, answered)
					rest = append(rest, pc)
				}
			}
			out = append(out, m.fit(st.withPending(rest))...)
			return
		}
		q, id := o.Seqs[unknown[u]], o.IDs[unknown[u]]
		if m.othersMayHold(q, id) {
			// Another writer's message.
			bind(u+1, st.withSeq(entry{seq: q, key: -1, id: id}, entry{}, false))
		}
		for p := range s.pending {
			pc := &s.pending[p]
			if used[p] || hides(pc.hidden, q) || !m.mayHold(pc.key, q) {
				continue
			}
			used[p] = true
			bind(u+1, st.commit(entry{seq: q, key: pc.key, id: id, hash: pc.hash}))
			used[p] = false
		}
	}
	bind(0, n)
	return out
}

// hides reports whether q lies in one of the sorted ranges.
func hides(rs []hidRange, q uint64) bool {
	i, _ := slices.BinarySearchFunc(rs, q, func(r hidRange, q uint64) int {
		switch {
		case r.hi < q:
			return -1
		case r.lo >= q:
			return 1
		}
		return 0
	})
	return i < len(rs) && rs[i].lo < q && q <= rs[i].hi
}

// withRange returns a fresh copy of rs with r added, merged with the
// ranges it overlaps or touches.
func withRange(rs []hidRange, r hidRange) []hidRange {
	out := make([]hidRange, 0, len(rs)+1)
	for _, x := range rs {
		switch {
		case x.hi < r.lo:
			out = append(out, x)
		case x.lo > r.hi:
			if r.lo < r.hi {
				out = append(out, r)
				r = hidRange{}
			}
			out = append(out, x)
		default:
			r = hidRange{lo: min(r.lo, x.lo), hi: max(r.hi, x.hi)}
		}
	}
	if r.lo < r.hi {
		out = append(out, r)
	}
	return out
}

// fit returns s if its pending commits can each hold a distinct free
// sequence above the initial counter outside the ranges that hid it, else
// nothing. Each commit's ranges are those of the syncs linearized after it,
// so the sets of sequences left to them are nested (an older commit's
// within a younger one's), and Hall's condition reduces to: the j-th most
// constrained has at least j sequences.
//
// A pending commit's floor (allocorder.go) hides the sequences up to it as
// well, which the syncs' order does not nest: when one has, the matching is
// decided outright (fitMatching).
func (m *Chat) fit(s *lstate) []*lstate {
	if len(s.pending) == 0 {
		return []*lstate{s}
	}
	if len(s.pending) > 1 && m.floors() {
		return one(m.fitMatching(s), s)
	}
	counts := make([]uint64, len(s.pending))
	for i := range s.pending {
		counts[i] = m.room(s, s.pending[i].hidden, uint64(len(s.pending)))
	}
	slices.Sort(counts)
	for j, c := range counts {
		if c < uint64(j+1) {
			return nil
		}
	}
	return []*lstate{s}
}

// room counts, up to enough, the free sequences above the initial counter
// outside rs.
func (m *Chat) room(s *lstate, rs []hidRange, enough uint64) uint64 {
	return freeOutside(rs, m.Base, m.Top(), enough, func(lo, hi uint64) uint64 {
		var n uint64
		tascend(s.seqs, lo, func(k uint64, _ entry) bool {
			if k > hi {
				return false
			}
			n++
			return true
		})
		return n + m.othersIn(s, lo, hi)
	})
}

func (m *Chat) describeState(s *lstate) string {
	d := fmt.Sprintf("%d msgs, max seq %d", s.nseq, tmax(s.seqs))
	if len(s.pending) > 0 {
		d += fmt.Sprintf(", %d committed unseen", len(s.pending))
	}
	return d
}

// describe renders operation i for hints and visualizations.
func (m *Chat) describe(i int) string {
	x := m.h
	o := &m.Ops[i]
	// A key, an id and a code are a service's or a client's to choose:
	// quoted unless plain, so a newline in one prints no line of its own.
	key := termsafe.Name(x.Key(o.Op))
	switch o.Kind {
	case KindNew, KindDedup:
		tag := "ok"
		if o.Kind == KindDedup {
			tag = "dedup"
		}
		seq, id := x.Ack(o.Op)
		return fmt.Sprintf("persist %s → %s %d %s", key, tag, seq, termsafe.Name(id))
	case KindInfo:
		return fmt.Sprintf("persist %s → %s", key, termsafe.Name(x.ErrorCode(o.Op)))
	case KindRejected:
		return fmt.Sprintf("persist %s → rejected (reused)", key)
	}
	var b strings.Builder
	after, limit := x.Asked(o.Op)
	fmt.Fprintf(&b, "sync after %d limit %d → [", after, limit)
	// The answer as given: what it showed at or below the initial counter
	// (Pre, not the model's) first; left out, a counterexample printed a
	// sync showing only such messages as an empty answer (a red team's).
	y := m.SyncOf(o)
	seqs := append(slices.Clip(y.Pre), y.Seqs...)
	for j, q := range seqs {
		if j == 12 {
			fmt.Fprintf(&b, " …%d more", len(seqs)-12)
			break
		}
		if j > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprint(&b, q)
	}
	b.WriteByte(']')
	return b.String()
}
