package checker

import (
	"fmt"
	"strings"
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
// table says which message the key got, the effect is that message; else the
// key is committed with its sequence unknown (a "wildcard"), bound by the
// first later observation: a replay for the key, or a sync returning a
// sequence no known message holds ("anonymous" until a replay claims it).
// A wildcard the syncs never show is assumed to lie outside what they read,
// so wildcards can hide a violation but never invent one.
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

type linKind uint8

const (
	lNew      linKind = iota + 1 // persist ok, dedup=false
	lDedup                       // persist ok, dedup=true
	lInfo                        // persist of unknown outcome
	lRejected                    // persist fail idempotency_key_reused (contract reject)
	lSync                        // sync ok
)

// linOp is one porcupine operation's input; porcupine gets its index. It
// is kept small (40 bytes, no pointers): a million-operation chat holds one
// per operation while it is decided. What only syncs need is in linSync.
type linOp struct {
	kind linKind
	key  int32
	op   int32  // index in index.ops
	sync int32  // lSync: index in model.syncs
	hash uint64 // stringHash of the payload_hash, 0 if none
	seq  uint64 // lNew, lDedup: acked; lInfo: the final table's, 0 if none
	id   uint64 // stringHash of the message_id, 0 if none
}

// linSync is a sync's answer.
type linSync struct {
	after uint64
	limit int
	// top: a full page answers up to its last sequence (0: not full, no
	// bound); answered: how many sequences it returned. seqs leaves out
	// those at or below the initial counter, which predate the run.
	top      uint64
	answered int
	seqs     []uint64
	ids      []uint64
}

type lstate struct {
	seqs, keys *tnode
	synced     *tnode // linearized syncs, by index in model.ops
	nseq       int    // entries in seqs
	wild       int    // keys committed with unknown sequence
	anon       int    // sequences seen with unknown key; never above wild
	h          uint64
}

func seqHash(e entry) uint64 {
	return mix64(1 ^ e.seq*0x9e3779b97f4a7c15 ^ uint64(uint32(e.key))<<32 ^ e.id)
}

func keyHash(e entry) uint64 {
	return mix64(2 ^ e.seq*0xc2b2ae3d27d4eb4f ^ uint64(uint32(e.key))<<32 ^ e.id ^ mix64(e.hash))
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

func equalStates(a, b *lstate) bool {
	return a == b || a.h == b.h && a.nseq == b.nseq && a.wild == b.wild && a.anon == b.anon &&
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

// model is one chat's specification and operations.
type model struct {
	ops   []linOp
	syncs []linSync
	// waits holds, per operation, the syncs (indexes in ops) to linearize
	// before it (see above); only porcupine needs them, nil otherwise.
	waits     [][]int32
	call, ret []int64 // each operation's interval (ret timeMax: open-ended)
	forbidden bool    // contract gaps: forbidden
	base      uint64  // the header's initial_counter: sequences up to it predate the run
	reject    bool    // contract key_reuse: reject
	// steps counts successful steps, a bound on porcupine's cache entries;
	// past maxSteps (when not negative) every step fails so porcupine
	// unwinds, and aborted turns its verdict into unknown.
	steps, maxSteps int
	aborted         bool
}

// syncOf is sync o's answer.
func (m *model) syncOf(o *linOp) *linSync { return &m.syncs[o.sync] }

// waitOf is what operation i waits for, nil without waits.
func (m *model) waitOf(i int32) []int32 {
	if m.waits == nil {
		return nil
	}
	return m.waits[i]
}

func (m *model) step(s *lstate, i int32) (bool, *lstate) {
	if m.maxSteps >= 0 && m.steps >= m.maxSteps {
		m.aborted = true
		return false, nil
	}
	ok, n := m.apply(s, i)
	if ok {
		m.steps++
	}
	return ok, n
}

func (m *model) apply(s *lstate, i int32) (bool, *lstate) {
	o := &m.ops[i]
	switch o.kind {
	case lNew:
		if o.seq == 0 {
			return false, nil
		}
		if _, ok := tget(s.keys, uint64(o.key)); ok {
			return false, nil
		}
		if _, ok := tget(s.seqs, o.seq); ok {
			return false, nil
		}
		if m.forbidden && o.seq != m.base+uint64(s.nseq)+1 {
			return false, nil
		}
		if !s.waited(m.waitOf(i)) {
			return false, nil
		}
		return true, s.commit(entry{seq: o.seq, key: o.key, id: o.id, hash: o.hash})
	case lDedup:
		return m.replay(s, o)
	case lInfo:
		if _, ok := tget(s.keys, uint64(o.key)); ok {
			return true, s // a retry of a committed key changes nothing
		}
		seq := o.seq
		if m.forbidden {
			if next := m.base + uint64(s.nseq) + 1; seq == 0 || seq == next {
				seq = next
			} else {
				return true, s // its message is elsewhere: here it had no effect
			}
		}
		if seq == 0 {
			n := *s
			n.wild++
			n.withKey(entry{key: o.key, hash: o.hash}, entry{}, false)
			return true, &n
		}
		if _, used := tget(s.seqs, seq); used {
			return true, s // that sequence is taken: here it had no effect
		}
		if !s.waited(m.waitOf(i)) {
			return false, nil // taking effect here fails a later sync; later it may
		}
		return true, s.commit(entry{seq: seq, key: o.key, id: o.id, hash: o.hash})
	case lRejected:
		e, ok := tget(s.keys, uint64(o.key))
		if !ok || (e.hash != 0 && e.hash == o.hash) {
			return false, nil
		}
		return true, s
	case lSync:
		ok, n := m.sync(s, m.syncOf(o))
		if !ok {
			return false, nil
		}
		if n == s {
			c := *s
			n = &c
		}
		self := uint64(i)
		n.synced = tput(n.synced, self, entry{})
		n.h ^= mix64(3 ^ self*0xd6e8feb86659fd93)
		return true, n
	}
	return false, nil
}

// replay steps a persist answered dedup=true: its key was committed with
// the answered sequence and message.
func (m *model) replay(s *lstate, o *linOp) (bool, *lstate) {
	e, ok := tget(s.keys, uint64(o.key))
	if !ok || o.seq == 0 {
		return false, nil
	}
	if m.reject && e.hash != 0 && o.hash != 0 && e.hash != o.hash {
		return false, nil // other content must be rejected, not replayed
	}
	if e.seq != 0 {
		switch {
		case e.seq != o.seq:
			return false, nil
		case e.id == o.id:
			return true, s
		case e.id != 0:
			return false, nil
		}
		e.id = o.id // first observation of a message_id
		return true, s.commit(e)
	}
	// A wildcard: this answer binds its sequence.
	se, used := tget(s.seqs, o.seq)
	e.seq, e.id = o.seq, o.id
	switch {
	case !used:
		if s.anon > s.wild-1 {
			return false, nil // every remaining wildcard already owns a seen sequence
		}
	case se.key != -1 || se.id != o.id:
		return false, nil
	}
	n := s.commit(e)
	n.wild--
	if used {
		n.anon--
	}
	return true, n
}

// sync steps a read: the committed sequences above after, ascending, the
// first limit of them, are exactly what was returned. A returned sequence
// the model does not hold is a wildcard's, if one is unbound.
func (m *model) sync(s *lstate, o *linSync) (bool, *lstate) {
	if o.limit > 0 && o.answered > o.limit {
		return false, nil
	}
	for i, q := range o.seqs {
		if q <= o.after || (i > 0 && q <= o.seqs[i-1]) {
			return false, nil
		}
	}
	var unknown []int  // indexes of returned sequences the model lacks
	var bindIDs []int  // indexes whose model entry lacks its message_id
	var bindAt []entry // those entries
	i, ok := 0, true
	tascend(s.seqs, o.after, func(k uint64, e entry) bool {
		for i < len(o.seqs) && o.seqs[i] < k {
			unknown = append(unknown, i)
			i++
		}
		if i == len(o.seqs) {
			ok = o.top > 0 && k > o.top // a short page must have returned everything
			return false
		}
		if o.seqs[i] != k {
			ok = false // k was skipped
			return false
		}
		switch {
		case e.id == 0:
			bindIDs, bindAt = append(bindIDs, i), append(bindAt, e)
		case e.id != o.ids[i]:
			ok = false
			return false
		}
		i++
		return true
	})
	if !ok {
		return false, nil
	}
	for ; i < len(o.seqs); i++ {
		unknown = append(unknown, i)
	}
	if len(unknown) == 0 && len(bindIDs) == 0 {
		return true, s
	}
	if s.anon+len(unknown) > s.wild {
		return false, nil
	}
	n := s
	for j, idx := range bindIDs {
		e := bindAt[j]
		e.id = o.ids[idx]
		n = n.commit(e)
	}
	for _, idx := range unknown {
		n = n.withSeq(entry{seq: o.seqs[idx], key: -1, id: o.ids[idx]}, entry{}, false)
		n.anon++
	}
	return true, n
}

func (m *model) describeState(s *lstate) string {
	d := fmt.Sprintf("%d msgs, max seq %d", s.nseq, tmax(s.seqs))
	if s.wild > 0 {
		d += fmt.Sprintf(", %d unbound (%d seen)", s.wild, s.anon)
	}
	return d
}

// describe renders operation i for hints and visualizations.
func (m *model) describe(x *index, i int) string {
	o := &m.ops[i]
	key := x.keyName(o.op)
	switch o.kind {
	case lNew, lDedup:
		tag := "ok"
		if o.kind == lDedup {
			tag = "dedup"
		}
		return fmt.Sprintf("persist %s → %s %d %s", key, tag, x.ackSeq(o.op), x.midName(x.ackID(o.op)))
	case lInfo:
		return fmt.Sprintf("persist %s → %s", key, x.errCode(o.op))
	case lRejected:
		return fmt.Sprintf("persist %s → rejected (reused)", key)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "sync after %d limit %d → [", x.after(o.op), x.limit(o.op))
	seqs := m.syncOf(o).seqs
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
