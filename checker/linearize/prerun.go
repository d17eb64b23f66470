package linearize

import (
	"fmt"
	"maps"
	"math"
	"slices"
)

// Messages from before the run (at or below the initial counter) never
// change during it: no commit of the run is there. So what is known of
// them is checked once, outside any order (preRunContradiction), by the
// exact checker and before porcupine alike:
//
//   - every sight of one (a sync's answer, a replay, the final table) gives
//     it one message id;
//   - every sync whose range covers a known one returned it;
//   - a key rejected as reused that no persist of the run can have
//     committed is a key from before the run (preRunRejected): each needs a
//     message there, one a sync showed under no known key, or a free
//     sequence no sync's range covers; when the final messages table was
//     read, the key's own line at or below the counter.

// preRunSight is one sight of a message from before the run.
type preRunSight struct {
	id uint64
	op int32 // -1: the final table
}

// preRunContradiction returns a counterexample (a may be -1: the final
// table) when what is known of the messages before the run cannot hold.
func (m *Chat) preRunContradiction() (a, b int32, why string, found bool) {
	if m.Base == 0 {
		return 0, 0, "", false
	}
	known := map[uint64]preRunSight{}
	for s, id := range m.PreFinal {
		known[s] = preRunSight{id: id, op: -1}
	}
	sight := func(s, id uint64, op int32) (int32, bool) {
		k, ok := known[s]
		switch {
		case !ok:
			known[s] = preRunSight{id: id, op: op}
		case k.id == 0:
			known[s] = preRunSight{id: id, op: op}
		case id != 0 && id != k.id:
			return k.op, true
		}
		return 0, false
	}
	// A message from before the run has one key.
	keyAt := map[uint64]int32{} // sequence: the first operation naming its key
	for i := range m.Ops {
		o := &m.Ops[i]
		if (o.Kind == KindDedup || o.Kind == KindInfo) && o.Seq != 0 && o.Seq <= m.Base {
			if j, ok := keyAt[o.Seq]; !ok {
				keyAt[o.Seq] = int32(i)
			} else if m.Ops[j].Key != o.Key {
				return j, int32(i), fmt.Sprintf("they give sequence %d, a message from before the run, two keys", o.Seq), true
			}
		}
	}
	// A final line from before the run without a sender (key_scope
	// client) holds a key of its text: at a sequence a replay gives a key
	// of another text, it names another message's key. Judged apart from
	// whose line it is, which a line without a sender does not say.
	for _, lines := range [][]PreKeylessLine{m.PreKeyless, m.PreKeylessRecords} {
		for _, l := range lines {
			if j, ok := keyAt[l.Seq]; ok && l.Texted && m.h.Key(m.Ops[j].Op) != l.Text {
				return -1, j, fmt.Sprintf("it gives sequence %d, a message from before the run, whose final line names a key of another text (%q)", l.Seq, l.Text), true
			}
		}
	}
	shown := map[uint64]bool{} // seen by a sync
	keyed := map[uint64]bool{} // its key known: a replay's or a final line's
	for s := range m.PreFinal {
		keyed[s] = true
	}
	for i := range m.Ops {
		o := &m.Ops[i]
		switch o.Kind {
		case KindDedup, KindInfo:
			if o.Seq != 0 && o.Seq <= m.Base {
				keyed[o.Seq] = true
				if j, bad := sight(o.Seq, o.ID, int32(i)); bad {
					return j, int32(i), fmt.Sprintf("they give sequence %d, from before the run, different message ids", o.Seq), true
				}
			}
		case KindSync:
			y := m.SyncOf(o)
			for k, s := range y.Pre {
				shown[s] = true
				if j, bad := sight(s, y.PreIDs[k], int32(i)); bad {
					return j, int32(i), fmt.Sprintf("they give sequence %d, from before the run, different message ids", s), true
				}
			}
		}
	}
	seqs := slices.Sorted(maps.Keys(known))
	for i := range m.Ops {
		o := &m.Ops[i]
		if o.Kind != KindSync {
			continue
		}
		y := m.SyncOf(o)
		hi := m.Base
		if y.Top > 0 {
			hi = min(hi, y.Top)
		}
		lo := len(seqs) // nothing is above 2^64-1
		if y.After < math.MaxUint64 {
			lo, _ = slices.BinarySearch(seqs, y.After+1)
		}
		for _, s := range seqs[lo:] {
			if s > hi {
				break
			}
			if !slices.Contains(y.Pre, s) {
				return known[s].op, int32(i), fmt.Sprintf("the message at sequence %d predates the run, so every sync after %d that answers up to it returns it", s, y.After), true
			}
		}
	}
	// Keys only rejected: each from before the run, with a message there.
	// Keys rejected whose other persists have unknown outcomes may be.
	rejected := slices.Sorted(maps.Values(m.rejectedOnly()))
	optional := m.preRunOptional()
	if len(rejected) == 0 && len(optional) == 0 {
		return 0, 0, "", false
	}
	var unplaced []int32 // those no final line of their own places
	for _, op := range rejected {
		s := m.PreRunKeySeq[m.Ops[op].Key]
		j, other := keyAt[s]
		switch {
		case s > m.Base:
			return -1, op, "the rejection proves the key was committed, no persist of the run can have, and its final line places its message in the run", true
		case s != 0 && other: // a key only rejected has no replay: j's is another
			return j, op, fmt.Sprintf("the key's final line places its message at sequence %d, another key's", s), true
		case s != 0: // its own line places it
		default:
			unplaced = append(unplaced, op)
		}
	}
	rejected = unplaced
	// Sequences another key's message holds: a replay's, or a final line's
	// whose key is known. A line there whose key is not known is that
	// message, no rejected key's.
	placed := map[uint64]bool{}
	for s := range keyAt {
		placed[s] = true
	}
	for _, s := range m.PreRunKeySeq {
		placed[s] = true
	}
	if m.MessagesRead {
		// The table holds every message: each such key's is one of its
		// lines from before the run whose key is not known, one with no
		// key or one under the key's text (a line without a sender,
		// key_scope client): another text is another key's, whoever sent
		// it (oracle seeds 358437 and 3312796).
		pool := preKeylessPool(m.PreKeyless, placed)
		for _, op := range rejected {
			if !pool.take(m.h.Key(m.Ops[op].Op)) {
				return -1, op, "the rejection proves the key was committed, no persist of the run can have, and the final table holds no message of it from before the run", true
			}
		}
		// An optional key has a persist of unknown outcome that a line
		// whose key is not known may hold, which keeps the chat from a
		// pass (checker's keylessMayBeOpsOf): counting what is left is
		// enough here.
		m.preRunSlack = min(pool.left(), len(optional))
		return 0, 0, "", false
	}
	// A record from before the run whose key is not known (without a
	// sender) shows a message there (it is known, no free sequence): one
	// of a rejected key of its text (oracle seed 200204).
	records := preKeylessPool(m.PreKeylessRecords, placed)
	var unmatched []int32
	for _, op := range rejected {
		if !records.take(m.h.Key(m.Ops[op].Op)) {
			unmatched = append(unmatched, op)
		}
	}
	rejected = unmatched
	if len(rejected) == 0 && len(optional) == 0 {
		return 0, 0, "", false
	}
	free := uint64(0)
	for _, s := range seqs {
		if shown[s] && !keyed[s] {
			free++ // shown under no known key
		}
	}
	var covered []hidRange
	for i := range m.Ops {
		if o := &m.Ops[i]; o.Kind == KindSync {
			y := m.SyncOf(o)
			r := hidRange{lo: y.After, hi: math.MaxUint64}
			if y.Top > 0 {
				r.hi = y.Top
			}
			covered = withRange(covered, r)
		}
	}
	covered = withRange(covered, hidRange{lo: m.Base, hi: math.MaxUint64})
	need := uint64(len(rejected))
	free += freeOutside(covered, 0, math.MaxUint64, need+uint64(len(optional)), func(lo, hi uint64) uint64 {
		a, _ := slices.BinarySearch(seqs, lo+1)
		b, _ := slices.BinarySearch(seqs, hi+1)
		return uint64(b - a)
	})
	if free >= need {
		m.preRunSlack = int(min(free-need+uint64(records.left()), uint64(len(optional))))
	}
	if free < need {
		return -1, rejected[0], "the rejection proves the key was committed, no persist of the run can have, and no message from before the run can be its: every sequence up to the initial counter is another message's or in a range a sync answered without it", true
	}
	return 0, 0, "", false
}

// preRunOptional returns the keys rejected as reused whose other persists
// all have unknown outcomes and no final line (none acked, none replayed):
// each was committed either by one of them or, with an initial counter,
// before the run. With a final messages table, only where the key's line
// cannot be told (lines without a key: their persists then carry no final
// sequence); the table's lines from before the run without a key bound how
// many are from before it (preRunContradiction).
func (m *Chat) preRunOptional() []int32 {
	if m.Base == 0 || !m.Reject {
		return nil
	}
	if m.optDone {
		return m.optional
	}
	m.optDone = true
	rejected, other := map[int32]bool{}, map[int32]bool{}
	for i := range m.Ops {
		switch o := &m.Ops[i]; {
		case o.Kind == KindRejected:
			rejected[o.Key] = true
		case o.Kind == KindInfo && o.Seq == 0:
		default:
			other[o.Key] = true
		}
	}
	for k := range rejected {
		if !other[k] && !m.onlyRejected(k) {
			m.optional = append(m.optional, k)
		}
	}
	slices.Sort(m.optional)
	return m.optional
}

func (m *Chat) onlyRejected(k int32) bool {
	_, ok := m.rejectedOnly()[k]
	return ok
}

// rejectedOnly returns, per key whose only operations are rejections as
// reused, its first rejection: with an initial counter, keys from before
// the run.
func (m *Chat) rejectedOnly() map[int32]int32 {
	if m.Base == 0 || !m.Reject {
		return nil
	}
	if m.rejOnly != nil {
		return m.rejOnly
	}
	first := map[int32]int32{}
	other := map[int32]bool{}
	for i := range m.Ops {
		switch o := &m.Ops[i]; o.Kind {
		case KindRejected:
			if _, ok := first[o.Key]; !ok {
				first[o.Key] = int32(i)
			}
		case KindNew, KindDedup, KindInfo:
			other[o.Key] = true
		}
	}
	for k := range other {
		delete(first, k)
	}
	m.rejOnly = first
	return first
}

// PreKeylessLine is a final line at or below the initial counter whose
// key is not known.
type PreKeylessLine struct {
	Seq    uint64
	Text   string // its key's text, when it names one (without a sender)
	Texted bool   // false: no key at all
}

// preKeylessLines is what is left of the final table's lines from before
// the run whose key is not known: those without a key at all, which any
// key's message may be, and, by key text, those without a sender.
type preKeylessLines struct {
	untexted int
	texts    map[string]int
}

// preKeylessPool gathers the lines a rejected key's message may be: of
// lines, those at no sequence in placed (a replay's, or a line's whose
// key is known: another key's message is there; oracle seeds 2369832 and
// 2850925).
func preKeylessPool(lines []PreKeylessLine, placed map[uint64]bool) *preKeylessLines {
	p := &preKeylessLines{texts: map[string]int{}}
	for _, l := range lines {
		switch {
		case placed[l.Seq]:
		case l.Texted:
			p.texts[l.Text]++
		default:
			p.untexted++
		}
	}
	return p
}

// take gives a key of text one line that may be its message, one of its
// text first (it can be no other key's), and reports whether there was
// one. Taken in any order, as many keys find a line as can.
func (p *preKeylessLines) take(text string) bool {
	switch {
	case p.texts[text] > 0:
		p.texts[text]--
	case p.untexted > 0:
		p.untexted--
	default:
		return false
	}
	return true
}

func (p *preKeylessLines) left() int {
	n := p.untexted
	for _, k := range p.texts {
		n += k
	}
	return n
}
