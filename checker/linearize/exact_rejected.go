package linearize

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Two kinds of key whose commit no ack, final line or replay places:
//
//   - A key from before the run: a replay answers it, or the final table
//     holds it, at a sequence at or below the initial counter, where no
//     commit of the run can be. It was committed before everything, so its
//     replays answer its one message and nothing of the run commits it.
//   - A key rejected as reused and never replayed, whose message no final
//     line holds (e.rejected): the rejection proves it was committed before
//     the rejection, at a sequence no one names. decideRejected places it.

// preRunAway marks, in an assignment, a key from before the run.
const preRunAway = -2

// maxRejectedTrials bounds the placements decideRejected tries before it
// hands the chat to porcupine; each costs a pass over the graph.
const maxRejectedTrials = 256

// preRunRef is the operation of key k that shows its message predates the
// run, -1 if none.
func (e *exactChat) preRunRef(k *exactKey) int32 {
	if e.m.Base == 0 {
		return -1
	}
	for _, i := range k.ops {
		o := &e.m.Ops[i]
		if (o.Kind == KindDedup || o.Kind == KindInfo) && o.Seq != 0 && o.Seq <= e.m.Base {
			return i
		}
	}
	return -1
}

// settlePreRun judges a key from before the run: its replays and final
// line name one message, and under key_reuse reject one content, which its
// rejections do not carry. Nothing of the run commits it.
func (e *exactChat) settlePreRun(k *exactKey, ref int32) (string, []int) {
	m := e.m
	r := &m.Ops[ref]
	var content uint64
	contentOp := int32(-1)
	for _, i := range k.ops {
		o := &m.Ops[i]
		if o.Kind != KindDedup && o.Kind != KindInfo || o.Seq == 0 {
			continue
		}
		if o.Seq != r.Seq || o.ID != r.ID {
			return e.both(ref, i, fmt.Sprintf("the key's message predates the run (sequence %d, at or below the initial counter %d): one message", r.Seq, m.Base))
		}
		if o.Kind == KindDedup && m.Reject && o.Hash != 0 {
			switch {
			case content == 0:
				content, contentOp = o.Hash, i
			case content != o.Hash:
				return e.both(contentOp, i, "under key_reuse reject, other content is rejected, not replayed")
			}
		}
	}
	for _, i := range k.ops {
		if o := &m.Ops[i]; o.Kind == KindRejected && content != 0 && o.Hash == content {
			return e.both(contentOp, i, "a rejection of reused content follows a commit of the same content")
		}
	}
	k.seq, k.seqZero, k.relOp, k.first = 0, false, -1, -1
	return "", nil
}

// rejectedKey is a key of e.rejected with its window: committed no earlier
// than its first persist that may commit it, and before its first rejection
// completed.
type rejectedKey struct {
	rel, deadline int64
	first         int32 // its first rejection
	preRun        bool  // it may be a key from before the run (preRunOptional)
	preRunOnly    bool  // and nothing else (exactKey.preRunOnly)
}

// decideRejected places the keys of e.rejected. Each is committed, before
// its rejections, either at an unknown sequence (one a sync showed that no
// known persist commits: it is then that sequence's committer) or *away*
// at one nothing shows: under gaps allowed below the cursor or past the
// full page of every sync after it, under gaps: forbidden after every
// sequence up to the highest one needed. It tries each assignment, away
// first, and decides each exactly (rejectedTrial); past maxRejectedTrials
// the chat goes to porcupine. chatseq's own runs make no such key: it needs
// a rejection whose key's committer has an unknown outcome and no final
// table.
func (e *exactChat) decideRejected() (string, []int) {
	if !e.forbidden {
		// A commit away must also lie above its persist's floor
		// (allocorder.go), which the free sequences counted here do not
		// nest with: porcupine decides those.
		for _, k := range e.rejected {
			if r := e.keys[k].relOp; r >= 0 && e.m.floorOf(r) > e.m.Base {
				return errFallback, nil
			}
		}
	}
	rs := make([]rejectedKey, len(e.rejected))
	for i, k := range e.rejected {
		key := &e.keys[k]
		r := rejectedKey{rel: key.release, deadline: timeMax, first: -1,
			preRun:     slices.Contains(e.m.preRunOptional(), e.m.Ops[key.ops[0]].Key),
			preRunOnly: key.preRunOnly}
		for _, op := range key.ops {
			if e.m.Ops[op].Kind == KindRejected {
				if e.m.Ret[op] < r.deadline {
					r.deadline, r.first = e.m.Ret[op], op
				}
			}
		}
		rs[i] = r
	}
	// Away first in order of deadline (rejectedTrial relies on it).
	order := make([]int, len(rs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(rs[a].deadline, rs[b].deadline) })
	sorted := make([]rejectedKey, len(rs))
	for i, j := range order {
		sorted[i] = rs[j]
	}
	lst := e.g.latest()
	eligible := make([][]int, len(sorted))
	for i, r := range sorted {
		for j, u := range e.unknown {
			if u.bound < 0 && !e.m.isOther(u.seq) && e.g.est[u.node] <= r.deadline && r.rel <= lst[u.node] {
				eligible[i] = append(eligible[i], j)
			}
		}
		slices.SortFunc(eligible[i], func(a, b int) int { return cmp.Compare(lst[e.unknown[a].node], lst[e.unknown[b].node]) })
	}
	assign := make([]int, len(sorted)) // per key: the unknown it commits, -1 away, preRunAway from before the run
	preRun := 0
	taken := make([]bool, len(e.unknown))
	trials := 0
	var firstD string
	var firstL []int
	var try func(i int) bool
	try = func(i int) bool {
		if trials > maxRejectedTrials {
			return false
		}
		if i == len(sorted) {
			trials++
			d, l := e.rejectedTrial(sorted, assign, taken)
			if d == "" {
				return true
			}
			if trials == 1 {
				firstD, firstL = d, l
			}
			return false
		}
		if sorted[i].preRun && preRun < e.m.preRunSlack {
			// From before the run: it needs no commit of the run.
			assign[i], preRun = preRunAway, preRun+1
			ok := try(i + 1)
			preRun--
			if ok {
				return true
			}
		}
		if sorted[i].preRunOnly {
			trials++
			if trials == 1 {
				firstD, firstL = e.alone(sorted[i].first, "the rejection proves the key was committed, no persist of the run carries content it rejects, and no message from before the run can be its")
			}
			return false
		}
		assign[i] = -1
		if try(i + 1) {
			return true
		}
		for _, j := range eligible[i] {
			if taken[j] {
				continue
			}
			taken[j], assign[i] = true, j
			ok := try(i + 1)
			taken[j], assign[i] = false, -1
			if ok {
				return true
			}
		}
		return false
	}
	switch {
	case try(0):
		return "", nil
	case trials > maxRejectedTrials:
		return errFallback, nil
	}
	return firstD, firstL
}

// rejectedTrial decides the chat with each key of rs (by deadline) placed
// as assign says: committing unknown sequence assign[i], or away (-1). A
// key at unknown u raises u's node to the key's release and must precede
// its first rejection; a key away under gaps: forbidden commits after the
// highest needed sequence and after every sync that would otherwise show
// it, the keys away in order of deadline (earliest deadline first is
// optimal for points that may share a time); under gaps allowed it commits
// just before its first rejection, at a free sequence outside what every
// sync after that answered. Then the unknown sequences left are matched as
// usual, by latest times that the keys' deadlines lowered.
func (e *exactChat) rejectedTrial(rs []rejectedKey, assign []int, taken []bool) (string, []int) {
	g := &e.g
	n := g.size()
	raise := make([]int64, n)
	capAt := make([]int64, n)
	for v := range raise {
		raise[v], capAt[v] = timeMin, timeMax
	}
	for i, j := range assign {
		if j >= 0 {
			v := e.unknown[j].node
			raise[v] = max(raise[v], rs[i].rel)
			capAt[v] = min(capAt[v], rs[i].deadline)
		}
	}
	var away []int // indexes in rs, by deadline
	for i, j := range assign {
		if j == -1 {
			away = append(away, i)
			if rs[i].rel > rs[i].deadline {
				return e.alone(rs[i].first, "it must take effect after a commit that could not happen before it completed")
			}
		}
	}
	// Under gaps: forbidden, the syncs (and the highest needed sequence)
	// each key away must follow: the j-th away takes top+j+1, which a
	// sync that is not a full page and whose cursor is below it would show.
	var top uint64 = e.m.Base
	topLeaf := int32(-1)
	if len(e.seqs) > 0 {
		top, topLeaf = e.seqs[len(e.seqs)-1], e.leaves[len(e.leaves)-1]
	}
	before := make([][]int32, len(away)) // forbidden: what away key j must follow
	// forbidden: the sequence away key j takes, the j-th above top that
	// no other writer's final line holds (those were taken before it:
	// oracle seed 3481932).
	awaySeq := make([]uint64, len(away))
	if e.forbidden {
		q := top
		for j := range away {
			for q++; e.m.isOther(q) && q < math.MaxUint64; q++ {
			}
			awaySeq[j] = q
			if q > e.m.Top() {
				return e.alone(rs[away[j]].first, fmt.Sprintf("the rejection proves the key's message was committed before it; under gaps: forbidden it takes sequence %d or above (above %d, past other writers' lines), and the final counter is %d", q, top, e.m.Top()))
			}
		}
	}
	if e.forbidden && len(away) > 0 {
		if topLeaf >= 0 {
			before[0] = append(before[0], topLeaf)
		}
		for i := range e.m.Ops {
			if e.m.Ops[i].Kind != KindSync {
				continue
			}
			y := e.m.SyncOf(&e.m.Ops[i])
			if y.Top > 0 {
				continue // a full page ends at or below top
			}
			// The away keys at or below its cursor it need not show.
			j := len(away)
			if y.After < math.MaxUint64 {
				j, _ = slices.BinarySearch(awaySeq, y.After+1)
			}
			if j < len(away) {
				before[j] = append(before[j], int32(i))
			}
		}
		for j, vs := range before {
			for _, v := range vs {
				capAt[v] = min(capAt[v], rs[away[j]].deadline)
			}
		}
	}
	est := make([]int64, n)
	for v := range est {
		est[v] = max(g.lower(int32(v)), raise[v])
	}
	for _, v := range g.order {
		if est[v] > min(g.upper(v), capAt[v]) {
			return e.alone(rs[0].first, "the rejection proves the key's message was committed before it, but no placement of that commit fits the operations' intervals")
		}
		for w := range g.succ(v) {
			est[w] = max(est[w], est[v])
		}
	}
	if e.forbidden {
		t := int64(timeMin)
		for j, i := range away {
			t = max(t, rs[i].rel)
			for _, v := range before[j] {
				t = max(t, est[v])
			}
			if t > rs[i].deadline {
				return e.alone(rs[i].first, fmt.Sprintf("the rejection proves the key's message was committed before it; under gaps: forbidden no sequence fits it: it is none of the unknown sequences up to %d, and above them a sync after it would have returned it", top))
			}
		}
	} else if d, l := e.hideAway(rs, away, est); d != "" {
		return d, l
	}
	lst := make([]int64, n)
	for k := len(g.order) - 1; k >= 0; k-- {
		v := g.order[k]
		l := min(g.upper(v), capAt[v])
		for w := range g.succ(v) {
			l = min(l, lst[w])
		}
		lst[v] = l
	}
	return e.matchUnknownsWith(lst, taken)
}

// hideAway checks, under gaps allowed, that the keys away (rs[away], by
// deadline) can hold distinct free sequences that no sync after their
// commits answered. A key commits just before its first rejection, so the
// syncs after it are those that cannot take effect by then; the later a
// deadline, the fewer, so the sets of sequences left are nested and the
// j-th key needs j of them.
func (e *exactChat) hideAway(rs []rejectedKey, away []int, est []int64) (string, []int) {
	if len(away) == 0 {
		return "", nil
	}
	occupied := append(slices.Clone(e.seqs), e.m.others...)
	for k := range e.keys {
		if s := e.keys[k].seq; s != 0 {
			occupied = append(occupied, s)
		}
	}
	slices.Sort(occupied)
	occupied = slices.Compact(occupied)
	for j, i := range away {
		var hidden []hidRange
		for v := range e.m.Ops {
			if e.m.Ops[v].Kind != KindSync || est[v] <= rs[i].deadline {
				continue
			}
			y := e.m.SyncOf(&e.m.Ops[v])
			r := hidRange{lo: y.After, hi: math.MaxUint64}
			if y.Top > 0 {
				r.hi = y.Top
			}
			hidden = withRange(hidden, r)
		}
		inOccupied := func(lo, hi uint64) uint64 {
			a, _ := slices.BinarySearch(occupied, lo+1)
			b, _ := slices.BinarySearch(occupied, hi+1)
			return uint64(b - a)
		}
		if freeOutside(hidden, e.m.Base, e.m.Top(), uint64(j+1), inOccupied) < uint64(j+1) {
			return e.alone(rs[i].first, "the rejection proves the key's message was committed before it, but no sequence fits it: every sync after it would have returned it, and it is none of the unknown sequences the syncs showed")
		}
	}
	return "", nil
}

// freeOutside counts, up to enough, the sequences in (base, top] outside
// the ranges rs (sorted, disjoint), less those taken counts in each stretch
// (lo, hi] between them.
func freeOutside(rs []hidRange, base, top, enough uint64, taken func(lo, hi uint64) uint64) uint64 {
	var n uint64
	at := base
	count := func(lo, hi uint64) bool { // (lo, hi]
		if hi = min(hi, top); hi > lo {
			n += hi - lo - taken(lo, hi)
		}
		return n >= enough
	}
	for _, r := range rs {
		if r.hi <= at {
			continue
		}
		if count(at, max(at, r.lo)) {
			return n
		}
		at = max(at, r.hi)
		if at >= top {
			return n
		}
	}
	if top == math.MaxUint64 {
		return enough
	}
	count(at, top)
	return n
}
