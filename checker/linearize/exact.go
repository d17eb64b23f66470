package linearize

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/chatseq/chatseq/checker/internal/columns"
)

// The exact linearizability checker decides one chat against the model in
// model.go without searching: every message has a known sequence, so each
// operation's legality becomes "these operations come before me, those
// after", and the question becomes whether points inside the operations'
// intervals can satisfy every such precedence — a cycle check and a
// longest-path pass (pgraph). checker/INVARIANTS.md gives the argument;
// the comments here say which constraint comes from which step rule.

// exactChat is one chat's problem.
type exactChat struct {
	m         *Chat
	forbidden bool
	holes     *HoleBudget // the check's, shared by its chats (nil: no bound but the chat's own)

	g pgraph // operation i is node i

	keys      []exactKey // the keys that need more than their own ack (see gatherKeys)
	plainKeys int        // the others: acked as new, replayed and rejected nowhere
	seqs      []uint64
	leaves    []int32 // node holding each of seqs
	unknown   []exactUnknown
	blame     []int32 // the operations a counterexample names
	// rejected are the keys (in keys) rejected as reused and never
	// replayed whose message no final line holds: committed at a
	// sequence no one names (decideRejected).
	rejected []int32
	// others are sequences another writer may have made, taken as other
	// writers' (the header does not say sole_writer); othersUnmade, how
	// many of them no persist of the history could have made in time
	// (the rest some could have).
	others       []uint64
	othersUnmade int
}

// exactKey gathers one key's operations. A key is committed by its persist
// acked as new, else by its first persist of unknown outcome to take effect.
type exactKey struct {
	n       int32   // the persist acked as new, -1
	ops     []int32 // every persist of the key (model ops)
	seq     uint64  // the sequence its message holds: acked, final table, or answered to a replay; 0 unknown
	release int64   // the earliest invoke among its persists of unknown outcome that may commit it
	relOp   int32   // that persist, -1 if none may
	first   int32   // a replay or rejection that needs the key committed, -1
	seqZero bool    // its unknown-outcome persists have no final message: a wildcard
	// preRunOnly: no persist of it can have committed it, so it is a key
	// from before the run, if one can be there (decideRejected).
	preRunOnly bool
}

// exactUnknown is a sequence some operation observed (or that gaps:
// forbidden needs) and that no known persist commits: an operation of
// unknown outcome whose message nobody tied to it must have.
type exactUnknown struct {
	seq   uint64
	node  int32
	bound int32  // the key whose replay answered this sequence, -1
	id    uint64 // the message id seen at it, 0 if none
}

const errFallback = "fallback"

// Exact decides chat m without a search (see above); a chat outside its
// reach is Unknown with Why "fallback", for Porcupine. A counterexample is
// drawn when draw allows it.
func Exact(m *Chat, draw *Drawings) Outcome { return ExactWithin(m, draw, nil) }

// ExactWithin is Exact placing at most what is left of holes (a check's
// HoleBudget) of gaps: forbidden's holes: a chat needing more goes to
// porcupine.
func ExactWithin(m *Chat, draw *Drawings, holes *HoleBudget) Outcome {
	e := &exactChat{m: m, forbidden: m.Forbidden, holes: holes}
	out := Outcome{Ops: len(m.Ops)}
	detail, lines := e.decide()
	switch {
	case detail == "":
		out.Status = Pass
		out.Others, out.OthersUnmade = e.others, e.othersUnmade
	case detail == errFallback:
		out.Status, out.Why = Unknown, "fallback"
	default:
		out.Status, out.Detail, out.Lines = Fail, detail, lines
		if ok, note := draw.take(); ok {
			var drawn bool
			if out.Viz, drawn = visualizeWindow(m, e.blame, draw.Dir); !drawn {
				draw.giveBack()
			}
		} else {
			out.Viz = note
		}
	}
	return out
}

// decide returns "" when the chat is linearizable, errFallback when it is
// outside what the exact checker handles, else the counterexample.
func (e *exactChat) decide() (string, []int) {
	if d, l := e.checkSingles(); d != "" {
		return d, l
	}
	if d, l := e.gatherKeys(); d != "" {
		return d, l
	}
	if d, l := e.placeSequences(); d != "" {
		return d, l
	}
	e.linkSyncs()
	late, acyclic := e.g.solve()
	if !acyclic {
		return e.explainCycle(e.g.shortestCycle())
	}
	if late >= 0 {
		return e.explainLate(late)
	}
	if len(e.rejected) > 0 {
		return e.decideRejected()
	}
	return e.matchUnknowns()
}

func (e *exactChat) desc(i int32) string {
	return fmt.Sprintf("line %d %s", e.m.h.InvokeLine(e.m.Ops[i].Op), e.m.describe(int(i)))
}

func (e *exactChat) lines(ops ...int32) []int {
	var l []int
	for _, i := range ops {
		if i >= 0 {
			e.blame = append(e.blame, i)
			l = append(l, e.m.h.Lines(e.m.Ops[i].Op)...)
		}
	}
	return l
}

func (e *exactChat) both(a, b int32, why string) (string, []int) {
	return fmt.Sprintf("no order satisfies both %s and %s: %s", e.desc(a), e.desc(b), why), e.lines(a, b)
}

func (e *exactChat) alone(a int32, why string) (string, []int) {
	return fmt.Sprintf("%s can take effect in no order: %s", e.desc(a), why), e.lines(a)
}

// checkSingles finds operations no state accepts, and what is known of
// the messages from before the run that cannot hold.
func (e *exactChat) checkSingles() (string, []int) {
	if a, b, why, found := e.m.preRunContradiction(); found {
		if a < 0 {
			return e.alone(b, why)
		}
		return e.both(a, b, why)
	}
	for i := range e.m.Ops {
		o := &e.m.Ops[i]
		switch o.Kind {
		case KindNew, KindDedup:
			if o.Seq == 0 {
				return e.alone(int32(i), "it answers sequence 0, which no message holds")
			}
			if o.Kind == KindNew && o.Seq <= e.m.Base {
				return e.alone(int32(i), fmt.Sprintf("a new message's sequence is above the initial counter %d: the counter only grows from where it stood", e.m.Base))
			}
		case KindSync:
			y := e.m.SyncOf(o)
			if y.Limit > 0 && y.Answered > y.Limit {
				return e.alone(int32(i), fmt.Sprintf("it returned %d messages, over its limit %d", y.Answered, y.Limit))
			}
			for j, q := range y.Seqs {
				if q <= y.After || j > 0 && q <= y.Seqs[j-1] {
					return e.alone(int32(i), "its sequences are not strictly ascending above its cursor")
				}
			}
		}
	}
	return "", nil
}

// gatherKeys groups persists by key and settles what each key's commit
// must be: which persist may commit it, at what sequence, from when.
func (e *exactChat) gatherKeys() (string, []int) {
	m := e.m
	// Sorted by key, then operation, as one number each: a third of the
	// time of a comparison of the operations' keys.
	packed := make([]uint64, 0, len(m.Ops))
	for i := range m.Ops {
		if m.Ops[i].Kind != KindSync {
			packed = append(packed, uint64(uint32(m.Ops[i].Key)^1<<31)<<32|uint64(i))
		}
	}
	slices.Sort(packed)
	byKey := make([]int32, len(packed))
	for j, p := range packed {
		byKey[j] = int32(uint32(p))
	}
	packed = nil
	hasZero, hasSeq := false, false
	for lo := 0; lo < len(byKey); {
		hi := lo
		for hi < len(byKey) && m.Ops[byKey[hi]].Key == m.Ops[byKey[lo]].Key {
			hi++
		}
		k := exactKey{n: -1, relOp: -1, first: -1, ops: byKey[lo:hi]}
		for _, i := range k.ops {
			o := &m.Ops[i]
			switch o.Kind {
			case KindNew:
				if k.n >= 0 {
					return e.both(k.n, i, "a key is created once")
				}
				k.n = i
			case KindInfo:
				if o.Seq == 0 {
					hasZero = true
				} else {
					hasSeq = true
				}
			case KindDedup, KindRejected:
				if k.first < 0 {
					k.first = i
				}
			}
		}
		if k.n >= 0 && k.first < 0 {
			// Its ack commits it and no replay or rejection needs it:
			// the ack's fact alone places it. Most keys of a run; not
			// keeping them saves 64 bytes each.
			e.plainKeys++
			lo = hi
			continue
		}
		if d, l := e.settleKey(&k); d != "" {
			return d, l
		}
		e.keys = append(e.keys, k)
		lo = hi
	}
	if hasZero && hasSeq {
		// Some unknown outcomes have a final message and some do not
		// (final messages without keys): both kinds of commit at once.
		return errFallback, nil
	}
	return "", nil
}

// settleKey checks a key's replays and rejections against the persist that
// can have committed it, and finds the earliest persist of unknown outcome
// whose content every replay and rejection of the key accepts.
func (e *exactChat) settleKey(k *exactKey) (string, []int) {
	m := e.m
	reject := m.Reject
	if k.n >= 0 {
		n := &m.Ops[k.n]
		k.seq = n.Seq
		for _, i := range k.ops {
			o := &m.Ops[i]
			switch o.Kind {
			case KindDedup:
				if o.Seq != n.Seq {
					return e.both(k.n, i, "a replay answers the message that created the key")
				}
				if reject && n.Hash != 0 && o.Hash != 0 && n.Hash != o.Hash {
					return e.both(k.n, i, "under key_reuse reject, other content is rejected, not replayed")
				}
			case KindRejected:
				if n.Hash != 0 && n.Hash == o.Hash {
					return e.both(k.n, i, "a rejection of reused content follows a commit of the same content")
				}
			}
		}
		return "", nil
	}
	if pre := e.preRunRef(k); pre >= 0 {
		return e.settlePreRun(k, pre)
	}
	// Committed, if at all, by a persist of unknown outcome: all of them
	// carry the key's final message (or none).
	var replayHash, rejected []uint64
	for _, i := range k.ops {
		o := &m.Ops[i]
		switch o.Kind {
		case KindInfo:
			k.seq, k.seqZero = o.Seq, o.Seq == 0
		case KindDedup:
			if reject && o.Hash != 0 && !slices.Contains(replayHash, o.Hash) {
				replayHash = append(replayHash, o.Hash)
			}
		case KindRejected:
			if o.Hash != 0 {
				rejected = append(rejected, o.Hash)
			}
		}
	}
	for _, i := range k.ops {
		o := &m.Ops[i]
		if o.Kind != KindInfo {
			continue
		}
		ok := o.Hash == 0 || len(replayHash) == 0 || len(replayHash) == 1 && replayHash[0] == o.Hash
		ok = ok && (o.Hash == 0 || !slices.Contains(rejected, o.Hash))
		if ok && (k.relOp < 0 || e.m.Call[i] < k.release) {
			k.release, k.relOp = e.m.Call[i], i
		}
	}
	if k.first < 0 {
		return "", nil
	}
	if _, pre := e.m.rejectedOnly()[m.Ops[k.first].Key]; pre && k.relOp < 0 {
		// Only rejected: a key from before the run (checkSingles found
		// it room there).
		k.first = -1
		return "", nil
	}
	if k.relOp < 0 && k.seqZero && e.m.preRunSlack > 0 && slices.Contains(e.m.preRunOptional(), m.Ops[k.first].Key) {
		// None of its persists carries content its rejections accept:
		// it can only be from before the run (decideRejected counts it).
		k.preRunOnly = true
		return "", nil
	}
	if k.relOp < 0 {
		why := "no persist of the key could have committed it"
		if k.seq != 0 || k.seqZero {
			why = "no persist of the key that could have committed it carries the content its replays and rejections require"
		}
		return e.alone(k.first, why)
	}
	// Every replay answers one sequence: the final table's, else the first
	// replay's.
	for _, i := range k.ops {
		o := &m.Ops[i]
		if o.Kind != KindDedup {
			continue
		}
		switch {
		case k.seq == 0:
			k.seq = o.Seq
			k.first = i
		case o.Seq != k.seq && k.seqZero:
			return e.both(k.first, i, "two replays of one key answer different sequences")
		case o.Seq != k.seq:
			return e.both(k.relOp, i, fmt.Sprintf("the final table holds the key's message at sequence %d", k.seq))
		}
	}
	return "", nil
}

// seqFact is one thing known about a sequence (24 bytes: there is one per
// persist acked as new).
type seqFact struct {
	seq  uint64
	id   uint64 // factObserved: the message id seen
	ref  int32  // factNew: the persist; factObserved: the replay or sync; factKey: the key
	kind uint8  // factNew, factKey, factObserved
	// On a sequence's first fact (syncObservations): its committer and
	// message id are known, and a sync showed it.
	confirmed, shown bool
}

const (
	factNew      = iota // a persist acked as new commits seq
	factKey             // a key's unknown-outcome persists commit seq, if any does
	factObserved        // a replay or sync saw seq
)

// placeSequences decides, per sequence, which operation commits it and
// gives it a node, and adds the edges of replays, rejections and (under
// gaps: forbidden) the sequence order.
func (e *exactChat) placeSequences() (string, []int) {
	m := e.m
	nfacts := 0
	for i := range m.Ops {
		if k := m.Ops[i].Kind; k == KindNew || k == KindDedup && m.Ops[i].Seq > m.Base {
			nfacts++
		}
	}
	for k := range e.keys {
		if key := &e.keys[k]; key.n < 0 && key.seq != 0 {
			nfacts++
		}
	}
	// A fact per persist and key; what syncs saw mostly confirms them
	// (syncObservations) and joins the facts only when it does not.
	facts := make([]seqFact, 0, nfacts)
	// A node per operation (its own) and sequence; the edges of syncs are
	// added, sized, by linkSyncs.
	e.g.call, e.g.ret = m.Call, m.Ret
	e.seqs = make([]uint64, 0, nfacts)
	e.leaves = make([]int32, 0, nfacts)
	// Made in (kind, ref) order, so that ordering them by sequence alone,
	// keeping that order within one, orders them fully (sortFacts).
	for i := range m.Ops {
		if o := &m.Ops[i]; o.Kind == KindNew {
			facts = append(facts, seqFact{seq: o.Seq, kind: factNew, ref: int32(i)})
		}
	}
	for k := range e.keys {
		if key := &e.keys[k]; key.n < 0 && key.seq != 0 {
			facts = append(facts, seqFact{seq: key.seq, kind: factKey, ref: int32(k)})
		}
	}
	for i := range m.Ops {
		if o := &m.Ops[i]; o.Kind == KindDedup && o.Seq > m.Base {
			// (A replay at or below the initial counter is of a key from
			// before the run: settlePreRun judged it.)
			facts = append(facts, seqFact{seq: o.Seq, kind: factObserved, ref: int32(i), id: o.ID})
		}
	}
	sortFacts(facts)
	// What syncs saw: most of it confirms a sequence whose committer and
	// message id are already known, checked here; the rest joins the facts.
	extra, topShown, d, l := e.syncObservations(facts)
	if d != "" {
		return d, l
	}
	if len(extra) > 0 {
		sortFacts(extra) // made in ref order, all observations
		facts = mergeFacts(facts, extra)
	}
	// gaps: forbidden: the highest sequence that must be committed. A key
	// placed at a sequence (a final line, a replay) must be: one of its
	// persists made its message there.
	var top uint64
	if e.forbidden {
		top = topShown.seq
		for _, f := range facts {
			top = max(top, f.seq)
		}
		if d, l := e.enoughCommitters(facts, top, topShown); d != "" {
			return d, l
		}
		if top > e.m.Base && top-e.m.Base > maxHoles(len(m.Ops)) {
			// Other writers could have filled the holes (enoughCommitters
			// bounds them only under sole_writer): a node each would be
			// memory without bound (a sync showing 10^18 took 24 GB).
			return errFallback, nil
		}
		if !e.holes.take(holesBelow(facts, e.m.Base, top)) {
			return errFallback, nil // the check's budget is spent (holebudget.go)
		}
	}
	// gaps: forbidden: the next sequence to place, while one is left
	// (past 2^64-1 none is: next+1 wrapped to 0 and placed without end).
	next, left := e.m.Base+1, e.m.Base < math.MaxUint64
	for lo := 0; lo < len(facts); {
		hi := lo
		for hi < len(facts) && facts[hi].seq == facts[lo].seq {
			hi++
		}
		s := facts[lo].seq
		if e.forbidden && s <= e.m.Base {
			// Before the run's first sequence: nothing in the run commits it.
			if d, l := e.belowBase(s, facts[lo:hi]); d != "" {
				return d, l
			}
			lo = hi
			continue
		}
		if e.forbidden {
			if s > top {
				break
			}
			for ; next < s; next++ {
				e.addUnknown(next, -1)
			}
			next, left = s+1, s < math.MaxUint64
		}
		if d, l := e.placeSequence(s, facts[lo:hi]); d != "" {
			return d, l
		}
		lo = hi
	}
	for ; e.forbidden && left && next <= top; next++ {
		e.addUnknown(next, -1)
		left = next < math.MaxUint64
	}
	if e.forbidden {
		for i := 1; i < len(e.leaves); i++ {
			e.g.edge(e.leaves[i-1], e.leaves[i])
		}
	}
	return e.linkKeys()
}

// holesBelow is how many sequences in (base, top] no fact names (facts
// sorted by sequence): the holes gaps: forbidden places a node each.
func holesBelow(facts []seqFact, base, top uint64) uint64 {
	if top <= base {
		return 0
	}
	named, last := uint64(0), base
	for _, f := range facts {
		if f.seq > base && f.seq <= top && f.seq != last {
			named, last = named+1, f.seq
		}
	}
	return top - base - named
}

// maxHoles is the most sequences a chat of ops operations may need
// placed under gaps: forbidden with other writers before the exact checker
// leaves it to porcupine: a node each.
func maxHoles(ops int) uint64 { return max(1<<20, 4*uint64(ops)) }

// enoughCommitters refuses a gapless prefix longer than the operations that
// could fill it, before a node is made for each of its sequences.
func (e *exactChat) enoughCommitters(facts []seqFact, top uint64, shown seqFact) (string, []int) {
	could := uint64(e.plainKeys)
	for k := range e.keys {
		if e.keys[k].n >= 0 || e.keys[k].relOp >= 0 || e.keys[k].seq != 0 {
			could++
		}
	}
	if top <= e.m.Base || top-e.m.Base <= could || e.m.External {
		return "", nil
	}
	why := fmt.Sprintf("under gaps: forbidden sequence %d needs %d..%d committed, and only %d persists could commit one", top, e.m.Base+1, top, could)
	for _, f := range facts {
		switch {
		case f.seq != top:
		case f.kind != factKey:
			return e.alone(f.ref, why)
		case e.keys[f.ref].first >= 0:
			return e.alone(e.keys[f.ref].first, why)
		}
	}
	return e.alone(shown.ref, why) // a sync showed top
}

// placeSequence settles sequence s from its facts.
func (e *exactChat) placeSequence(s uint64, facts []seqFact) (string, []int) {
	m := e.m
	committer, key := int32(-1), int32(-1) // a persist acked as new; or a key
	var observed []seqFact
	for _, f := range facts {
		switch f.kind {
		case factNew:
			if committer >= 0 {
				return e.both(committer, f.ref, "a sequence holds one message")
			}
			committer = f.ref
		case factObserved:
			observed = append(observed, f)
		}
	}
	// Keys whose unknown-outcome persists carry s: the final state puts
	// each key's message at s, so one persist of each must commit it there,
	// and s holds one message.
	var candidates []int32
	for _, f := range facts {
		if f.kind != factKey {
			continue
		}
		k := &e.keys[f.ref]
		if committer >= 0 {
			return e.both(committer, k.ops[0], fmt.Sprintf("the final state puts the key's message at sequence %d, which the other persist committed for another key", s))
		}
		candidates = append(candidates, f.ref)
	}
	if len(candidates) > 1 {
		a, b := &e.keys[candidates[0]], &e.keys[candidates[1]]
		return e.both(a.ops[0], b.ops[0], fmt.Sprintf("the final state puts both keys' messages at sequence %d", s))
	}
	if committer < 0 && len(candidates) == 1 {
		// The key's message is at s: the persist a replay or rejection
		// needs, else its earliest whose message id every observation
		// accepts, commits it.
		k := candidates[0]
		kk := &e.keys[k]
		if kk.relOp >= 0 && e.m.floorOf(kk.relOp) >= s {
			// Its earliest persist that may commit it has the lowest floor.
			return e.alone(kk.relOp, fmt.Sprintf("its key's message is at sequence %d, and a persist was acked as creating sequence %d before it was invoked: the counter was past it (sequence_monotonic)", s, e.m.floorOf(kk.relOp)))
		}
		switch {
		case kk.first >= 0:
			key = k
		case kk.relOp >= 0 && e.idsAccept(m.Ops[kk.relOp].ID, observed):
			key = k
		case len(observed) > 0:
			return e.both(kk.relOp, observed[0].ref, fmt.Sprintf("the final table's message at sequence %d has another id", s))
		}
	}
	// The message id: the committer's, else the first observation binds it.
	var cid uint64
	var cop int32 = -1
	switch {
	case committer >= 0:
		cid, cop = m.Ops[committer].ID, committer
	case key >= 0 && e.keys[key].relOp >= 0:
		cid, cop = m.Ops[e.keys[key].relOp].ID, e.keys[key].relOp
	}
	for _, f := range observed {
		if cid == 0 && f.id != 0 {
			cid, cop = f.id, f.ref
			continue
		}
		if f.id != cid {
			return e.both(cop, f.ref, fmt.Sprintf("they give sequence %d different message ids", s))
		}
	}
	switch {
	case committer >= 0:
		e.addLeaf(s, committer)
	case key >= 0 && !e.keys[key].seqZero:
		if len(observed) == 0 && e.keys[key].first < 0 && !e.forbidden && !facts[0].shown {
			return "", nil // nothing needs it: it may commit after everything
		}
		k := &e.keys[key]
		if k.relOp < 0 {
			return e.alone(observed[0].ref, fmt.Sprintf("no persist could have committed sequence %d", s))
		}
		e.addLeaf(s, e.g.node(k.release, timeMax, k.relOp))
	case key >= 0:
		e.addUnknown(s, key)
	case len(observed) > 0 || e.forbidden:
		e.addUnknown(s, -1)
		e.unknown[len(e.unknown)-1].id = cid
	}
	return "", nil
}

// idsAccept reports whether a message committed with id could be the one
// every observation saw.
func (e *exactChat) idsAccept(id uint64, observed []seqFact) bool {
	for _, f := range observed {
		if id != 0 && f.id != id {
			return false
		}
	}
	return true
}

func (e *exactChat) addLeaf(s uint64, node int32) {
	e.seqs = append(e.seqs, s)
	e.leaves = append(e.leaves, node)
}

// addUnknown gives s a node for the unknown-outcome persist that commits
// it: the key whose replays answered s, or one to be matched later. The
// node is when s was committed (under gaps allowed, visible): for a key
// whose replay answered s, no earlier than that key's first persist that
// may commit it, since no other persist can have made s.
func (e *exactChat) addUnknown(s uint64, key int32) {
	lo, op := int64(timeMin), int32(-1)
	if key >= 0 {
		lo, op = e.keys[key].release, e.keys[key].relOp
	}
	n := e.g.node(lo, timeMax, op)
	e.addLeaf(s, n)
	e.unknown = append(e.unknown, exactUnknown{seq: s, node: n, bound: key})
}

// leafOf is the node of sequence s, -1 if none.
func (e *exactChat) leafOf(s uint64) int32 {
	if i, ok := slices.BinarySearch(e.seqs, s); ok {
		return e.leaves[i]
	}
	return -1
}

// linkKeys orders each replay and rejection after its key's commit.
func (e *exactChat) linkKeys() (string, []int) {
	m := e.m
	for k := range e.keys {
		key := &e.keys[k]
		if key.first < 0 {
			continue
		}
		at := int32(-1)
		if key.seq != 0 {
			at = e.leafOf(key.seq)
		}
		wildcard := key.n < 0 && key.seqZero
		// A key that may be from before the run needs no commit of it
		// (decideRejected tries both).
		mayPreRun := e.m.preRunSlack > 0 && slices.Contains(e.m.preRunOptional(), m.Ops[key.ops[0]].Key)
		if wildcard && at < 0 {
			// Rejected, never replayed, no final message: it commits at a
			// sequence no one names (decideRejected).
			e.rejected = append(e.rejected, int32(k))
		}
		for _, i := range key.ops {
			if kd := m.Ops[i].Kind; kd != KindDedup && kd != KindRejected {
				continue
			}
			if at >= 0 {
				e.g.edge(at, i)
			}
			if wildcard && !mayPreRun {
				// The key commits no earlier than its persist.
				e.g.raise(i, key.release)
			}
		}
	}
	return "", nil
}

// linkSyncs orders each sync after the sequences it returned and before
// those in its range it did not.
func (e *exactChat) linkSyncs() {
	t := newRangeTree(&e.g, e.leaves)
	m := e.m
	// The ranges first, to add their edges to storage of the right size:
	// grown by appends, the edges of a hot chat held 2.3 times their
	// size at once.
	var links rangeLinks
	var ranks columns.SeqRanks // of the leaves' sequences
	ranks.Build(len(e.seqs), func(i int) uint64 { return e.seqs[i] })
	for i := range m.Ops {
		if m.Ops[i].Kind != KindSync {
			continue
		}
		o := m.SyncOf(&m.Ops[i])
		v := int32(i)
		// [lo, hi): the leaves its answer covers.
		above := func(s uint64, from int) int { // the first leaf above s
			if s == math.MaxUint64 {
				return len(e.seqs)
			}
			return columns.Place(&ranks, e.seqs, s+1, from, cmp.Compare[uint64])
		}
		lo := above(o.After, 0)
		hi := len(e.seqs)
		if o.Top > 0 { // a full page answers up to its last sequence
			hi = above(o.Top, lo)
		}
		at := lo
		run := -1 // start of the current run of returned leaves
		for _, q := range o.Seqs {
			j := columns.Place(&ranks, e.seqs, q, at, cmp.Compare[uint64]) // present: every observed sequence has a node
			if run >= 0 && j != at {
				links.add(rangeLink{v, int32(run), int32(at), true})
				run = -1
			}
			if j > at {
				links.add(rangeLink{v, int32(at), int32(j), false})
			}
			if run < 0 {
				run = j
			}
			at = j + 1
		}
		if run >= 0 {
			links.add(rangeLink{v, int32(run), int32(at), true})
		}
		if at < hi {
			links.add(rangeLink{v, int32(at), int32(hi), false})
		}
	}
	n := 0
	links.each(func(k *rangeLink) { n += t.count(k.l, k.r) })
	e.g.ef, e.g.et = slices.Grow(e.g.ef, n), slices.Grow(e.g.et, n)
	links.each(func(k *rangeLink) {
		if k.after {
			t.after(&e.g, k.v, k.l, k.r)
		} else {
			t.before(&e.g, k.v, k.l, k.r)
		}
	})
	t.link(&e.g)
}

// rangeLink is a sync's link to a range of leaves.
type rangeLink struct {
	v, l, r int32
	after   bool // the leaves precede v; else v precedes them
}

// rangeLinks keeps links in blocks that double up to 64k links and are
// never copied: a hot chat has a million links, most chats a few.
type rangeLinks struct{ blocks [][]rangeLink }

func (ls *rangeLinks) add(k rangeLink) {
	n := len(ls.blocks)
	if n == 0 || len(ls.blocks[n-1]) == cap(ls.blocks[n-1]) {
		size := 64
		if n > 0 {
			size = min(2*cap(ls.blocks[n-1]), 1<<16)
		}
		ls.blocks = append(ls.blocks, make([]rangeLink, 0, size))
		n++
	}
	ls.blocks[n-1] = append(ls.blocks[n-1], k)
}

func (ls *rangeLinks) each(f func(*rangeLink)) {
	for _, b := range ls.blocks {
		for i := range b {
			f(&b[i])
		}
	}
}

// matchUnknowns gives every unknown sequence its own persist of unknown
// outcome, committed in time. Under gaps allowed the model tracks only
// counts: at every point, the wildcards committed must be at least the
// unknown sequences shown; under gaps: forbidden each hole of the prefix
// needs a distinct key replayed nowhere. Either way a sequence u can use
// a persist invoked no later than the latest time u's node can take, and
// these sets are nested, so sorted comparison decides the matching.
func (e *exactChat) matchUnknowns() (string, []int) {
	return e.matchUnknownsWith(e.g.latest(), nil)
}

// matchUnknownsWith matches the unknown sequences that taken (indexed as
// e.unknown, nil: none) leaves, by the latest times lst.
func (e *exactChat) matchUnknownsWith(lst []int64, taken []bool) (string, []int) {
	var need []exactUnknown
	for j, u := range e.unknown {
		if u.bound < 0 && (taken == nil || !taken[j]) {
			need = append(need, u)
		}
	}
	if len(need) == 0 {
		return "", nil
	}
	var supply []int64
	var supplyOp []int32
	for k := range e.keys {
		key := &e.keys[k]
		if key.n >= 0 || !key.seqZero || key.relOp < 0 || key.first >= 0 {
			continue // (a key a replay or rejection needs is bound, or placed by decideRejected)
		}
		supply = append(supply, key.release)
		supplyOp = append(supplyOp, key.relOp)
	}
	// A persist creates above what was acked before it was invoked
	// (allocorder.go): no later than the sequence's deadline either. Both
	// bound the invoke, so the eligible sets stay nested.
	if len(need) > 0 && len(e.m.allocOrder().seqs) > 0 {
		var raised []int64
		for _, u := range need {
			if d := e.m.allocOrder().deadline(u.seq); d < lst[u.node] {
				if raised == nil {
					raised = slices.Clone(lst)
				}
				raised[u.node] = min(raised[u.node], d)
			}
		}
		if raised != nil {
			lst = raised
		}
	}
	slices.SortFunc(need, func(a, b exactUnknown) int { return cmp.Compare(lst[a.node], lst[b.node]) })
	order := make([]int, len(supply))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(supply[a], supply[b]) })
	if e.m.External {
		// Without "sole_writer" another writer may have made those that
		// the final table, if read, holds under a key no persist of the
		// history used (they need no persist of the history).
		e.othersUnmade = unmatchedNeeds(need, lst, supply, order)
		kept := need[:0]
		for _, u := range need {
			if e.m.othersMayHold(u.seq, u.id) || e.m.otherShows(u.seq, u.id) {
				e.others = append(e.others, u.seq)
			} else {
				kept = append(kept, u)
			}
		}
		need = kept
	}
	for i, u := range need {
		if i < len(order) && supply[order[i]] <= lst[u.node] {
			continue
		}
		// The i+1 sequences needed first have only i persists in time.
		return e.explainUnmatched(need[:i+1], lst, supplyOp, order[:min(i, len(order))])
	}
	return "", nil
}

// unmatchedNeeds is how many of need (by deadline) the persists of
// unknown outcome (supply, their releases; order, by release) cannot
// all make in time, at most matched: each need takes the earliest
// release left if that is in time (a later need takes any an earlier one
// could). Once the check passed, that many of the needs another writer
// may hold are another's for certain: the warning's count, which named
// every such sequence, one a persist of the history could have made too
// (an outside tester's).
func unmatchedNeeds(need []exactUnknown, lst []int64, supply []int64, order []int) int {
	unmatched, next := 0, 0
	for _, u := range need {
		if next < len(order) && supply[order[next]] <= lst[u.node] {
			next++
		} else {
			unmatched++
		}
	}
	return unmatched
}

// sortFacts orders facts by sequence, keeping the order of those with the
// same one: given facts in (kind, ref) order, by sequence, kind, then ref.
func sortFacts(facts []seqFact) {
	if len(facts) < 2 {
		return
	}
	lo, hi := facts[0].seq, facts[0].seq
	for _, f := range facts {
		lo, hi = min(lo, f.seq), max(hi, f.seq)
	}
	if hi-lo >= 1<<32 || len(facts) >= 1<<31 {
		slices.SortStableFunc(facts, func(a, b seqFact) int { return cmp.Compare(a.seq, b.seq) })
		return
	}
	// Sorted as numbers, the sequence above the position: on a hot
	// chat's million facts a third of the time of sorting the facts. The
	// positions are in order already, so a stable radix sort of the
	// sequences alone orders the keys (a fifth of slices.Sort's time).
	keys := make([]uint64, len(facts))
	for i, f := range facts {
		keys[i] = (f.seq-lo)<<32 | uint64(i)
	}
	columns.RadixSortRange(keys, 32, 32+bits.Len64(hi-lo))
	// Gathered into a copy: facts are made in runs by kind that are each
	// nearly in sequence order, so the reads go mostly forward; moved in
	// place, cycle by cycle, each move waited for the one before (a
	// third of a hot chat's exact check).
	sorted := make([]seqFact, len(facts))
	for i, k := range keys {
		sorted[i] = facts[uint32(k)]
	}
	copy(facts, sorted)
}

// mergeFacts merges two lists of facts each ordered by sequence, kind,
// then ref.
func mergeFacts(a, b []seqFact) []seqFact {
	less := func(x, y *seqFact) bool {
		switch {
		case x.seq != y.seq:
			return x.seq < y.seq
		case x.kind != y.kind:
			return x.kind < y.kind
		}
		return x.ref < y.ref
	}
	out := make([]seqFact, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if less(&b[j], &a[i]) {
			out = append(out, b[j])
			j++
		} else {
			out = append(out, a[i])
			i++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// syncObservations compares each sequence a sync returned with its known
// committer's message id, and returns as facts the observations of the
// other sequences (no committer known, several possible, or an id not yet
// known), with the highest sequence any sync showed. It marks the first
// fact of each sequence whose committer and message id are known
// (confirmed: a sync showing it needs only its id compared), and of those
// the ones a sync showed.
func (e *exactChat) syncObservations(facts []seqFact) (extra []seqFact, top seqFact, d string, l []int) {
	m := e.m
	for lo := 0; lo < len(facts); {
		hi := lo
		for hi < len(facts) && facts[hi].seq == facts[lo].seq {
			hi++
		}
		op, id := int32(-1), uint64(0)
		keys := 0
		for _, f := range facts[lo:hi] {
			switch f.kind {
			case factNew:
				if op < 0 {
					op, id = f.ref, m.Ops[f.ref].ID
				}
			case factKey:
				keys++
				if k := &e.keys[f.ref]; keys == 1 && !k.seqZero && k.relOp >= 0 {
					if op < 0 || m.Ops[op].Kind != KindNew {
						op, id = k.relOp, m.Ops[k.relOp].ID
					}
				}
			}
		}
		// The committer is then the first fact's (committerOf).
		facts[lo].confirmed = op >= 0 && id != 0 && (m.Ops[op].Kind == KindNew || keys == 1)
		lo = hi
	}
	for i := range m.Ops {
		if m.Ops[i].Kind != KindSync {
			continue
		}
		o := m.SyncOf(&m.Ops[i])
		j := 0
		for k, q := range o.Seqs {
			if q > top.seq {
				top = seqFact{seq: q, ref: int32(i)}
			}
			j = findFact(facts, j, q)
			if j < len(facts) && facts[j].seq == q && facts[j].confirmed {
				c := e.committerOf(facts[j])
				if o.IDs[k] != m.Ops[c].ID {
					d, l = e.both(c, int32(i), fmt.Sprintf("they give sequence %d different message ids", q))
					return nil, top, d, l
				}
				facts[j].shown = true
				continue
			}
			extra = append(extra, seqFact{seq: q, kind: factObserved, ref: int32(i), id: o.IDs[k]})
		}
	}
	return extra, top, "", nil
}

// committerOf is the committer of a confirmed sequence, from its first
// fact: a persist acked as new sorts first, else the one key's.
func (e *exactChat) committerOf(f seqFact) int32 {
	if f.kind == factNew {
		return f.ref
	}
	return e.keys[f.ref].relOp
}

// findFact is the first index at or after from whose sequence is at least
// q, for q above every sequence before from: a sync's sequences ascend, so
// a short walk usually finds it.
func findFact(facts []seqFact, from int, q uint64) int {
	for steps := 0; from < len(facts) && facts[from].seq < q; steps++ {
		if steps == 8 {
			i, _ := slices.BinarySearchFunc(facts[from:], q, func(f seqFact, q uint64) int { return cmp.Compare(f.seq, q) })
			return from + i
		}
		from++
	}
	return from
}

// belowBase judges the facts of a sequence at or below the initial counter
// under gaps: forbidden, where the run's commits start above it: a persist
// acked as new there, a replay answering it, or a key whose replay or
// rejection needs its message there has no order.
func (e *exactChat) belowBase(s uint64, facts []seqFact) (string, []int) {
	why := fmt.Sprintf("under gaps: forbidden the run's commits start at %d, above the initial counter %d", e.m.Base+1, e.m.Base)
	for _, f := range facts {
		switch {
		case f.kind == factNew, f.kind == factObserved:
			return e.alone(f.ref, why)
		case f.kind == factKey && e.keys[f.ref].first >= 0:
			return e.alone(e.keys[f.ref].first, why)
		}
	}
	return "", nil
}
