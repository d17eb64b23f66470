package store

import (
	"cmp"
	"math"
	"math/bits"
	"slices"

	"github.com/chatseq/chatseq/checker/internal/columns"
)

// The views' sorts: by chat, sequence and a tie-break, each entry an
// index into the Log's records.

// SortKey orders a view: by chat, then a, then b, then index. Sorting
// these small records in place of comparing through the history's large
// structs keeps the sort in cache; input that is already in order (final
// tables usually are) is detected in one pass and left alone.
type SortKey struct {
	A    uint64
	B    int64
	Chat int32
	Idx  int32
}

func CompareKeys(p, q SortKey) int {
	return cmp.Or(cmp.Compare(p.Chat, q.Chat), cmp.Compare(p.A, q.A), cmp.Compare(p.B, q.B), cmp.Compare(p.Idx, q.Idx))
}

// chatRuns notes where a view's chat changes, for the common case of a
// view sorted within each chat whose chats come one after another in
// another order (final messages, walked chat by chat in the run's order):
// putting the chats in order is then a copy, not a sort.
type chatRuns struct {
	starts []int   // where each chat's run begins, after the first's (0)
	chats  []int32 // each run's chat, after the first's
	first  int32
	broken bool // some break is within a chat: a sort is needed
}

// step notes the order between positions j-1 (key p) and j (key k):
// where the chat changes, a run begins; a break within a chat needs a
// sort.
func (r *chatRuns) step(j int, p, k SortKey, order int) {
	switch {
	case r.broken:
	case p.Chat == k.Chat:
		r.broken = order > 0
	case len(r.starts) == maxChatRuns:
		r.broken = true
	default:
		if len(r.starts) == 0 {
			r.first = p.Chat
		}
		r.starts, r.chats = append(r.starts, j), append(r.chats, k.Chat)
	}
}

// maxChatRuns bounds the runs kept: beyond it the view is sorted.
const maxChatRuns = 1 << 16

// inOrder reports whether the view is sorted within runs of one chat
// each, no chat in two runs.
func (r *chatRuns) inOrder() bool {
	if r.broken || len(r.starts) == 0 {
		return false
	}
	seen := map[int32]bool{r.first: true}
	for _, c := range r.chats {
		if seen[c] {
			return false
		}
		seen[c] = true
	}
	return true
}

// concatenate rewrites idx with its runs in chat order.
func (r *chatRuns) concatenate(idx []int32) {
	type run struct {
		chat   int32
		lo, hi int
	}
	runs := []run{{r.first, 0, r.starts[0]}}
	for i, lo := range r.starts {
		hi := len(idx)
		if i+1 < len(r.starts) {
			hi = r.starts[i+1]
		}
		runs = append(runs, run{r.chats[i], lo, hi})
	}
	slices.SortFunc(runs, func(a, b run) int { return cmp.Compare(a.chat, b.chat) })
	out := make([]int32, 0, len(idx))
	for _, rn := range runs {
		out = append(out, idx[rn.lo:rn.hi]...)
	}
	copy(idx, out)
}

// SortByKey orders idx by key. Where chat, a (above the least) and the
// index fit in 64 bits together (chats and sequences are small numbers),
// a stable radix sort on the pair does the work in a few linear passes,
// and only runs of equal pairs (a sequence acknowledged twice) are sorted
// by b: a comparison sort of millions of acks by chat took a tenth of a
// check. Where b (above the least) fits beside them too, the radix sort
// takes the whole key and nothing is left to compare (events by chat,
// partition and offset, whose runs of one pair are whole chats).
func SortByKey(idx []int32, key func(int32) SortKey) {
	sorted, negative := true, false
	var maxChat, maxIdx int32
	var minA, maxA uint64 = math.MaxUint64, 0
	var minB, maxB int64 = math.MaxInt64, math.MinInt64
	var prev SortKey
	runs := chatRuns{}
	for j, i := range idx {
		k := key(i)
		k.Idx = i
		if j > 0 {
			order := CompareKeys(prev, k)
			sorted = sorted && order <= 0
			runs.step(j, prev, k, order)
		}
		prev = k
		negative = negative || k.Chat < 0 || i < 0
		maxChat, maxIdx = max(maxChat, k.Chat), max(maxIdx, i)
		minA, maxA = min(minA, k.A), max(maxA, k.A)
		minB, maxB = min(minB, k.B), max(maxB, k.B)
	}
	if sorted {
		return
	}
	if runs.inOrder() {
		runs.concatenate(idx)
		return
	}
	aBits, idxBits := bits.Len64(maxA-minA), bits.Len32(uint32(maxIdx))
	pairBits := aBits + bits.Len32(uint32(maxChat))
	if bBits := bits.Len64(uint64(maxB - minB)); !negative && maxB-minB >= 0 && pairBits+bBits+idxBits <= 64 {
		sortWhole(idx, key, pairBits+bBits+idxBits, aBits, bBits, idxBits, minA, minB)
		return
	}
	if negative || pairBits+idxBits > 64 {
		ks := make([]SortKey, len(idx))
		for j, i := range idx {
			ks[j] = key(i)
			ks[j].Idx = i
		}
		slices.SortFunc(ks, CompareKeys)
		for j := range ks {
			idx[j] = ks[j].Idx
		}
		return
	}
	// Each entry is the pair above the index, 8 bytes; the keys are
	// computed again rather than kept: 32-byte keys for each of millions
	// of records were the peak of a 5M-persist check's memory.
	order := make([]uint64, len(idx))
	for j, i := range idx {
		k := key(i)
		order[j] = (uint64(k.Chat)<<aBits|(k.A-minA))<<idxBits | uint64(i)
	}
	columns.RadixSortRange(order, idxBits, idxBits+pairBits)
	indexMask := uint64(1)<<idxBits - 1
	var tie []tieKey
	for lo := 0; lo < len(order); {
		hi := lo + 1
		for hi < len(order) && order[hi]>>idxBits == order[lo]>>idxBits {
			hi++
		}
		if hi-lo > 1 {
			tie = sortTies(tie[:0], order[lo:hi], indexMask, key)
		}
		lo = hi
	}
	for j, o := range order {
		idx[j] = int32(o & indexMask)
	}
}

// sortWhole orders idx by key with one radix sort of each entry's chat, a
// and b (above their least) and index, packed in the low width bits.
func sortWhole(idx []int32, key func(int32) SortKey, width, aBits, bBits, idxBits int, minA uint64, minB int64) {
	order := make([]uint64, len(idx))
	for j, i := range idx {
		k := key(i)
		order[j] = ((uint64(k.Chat)<<aBits|(k.A-minA))<<bBits|uint64(k.B-minB))<<idxBits | uint64(i)
	}
	columns.RadixSortRange(order, 0, width)
	indexMask := uint64(1)<<idxBits - 1
	for j, o := range order {
		idx[j] = int32(o & indexMask)
	}
}

// tieKey is an entry of a run of equal pairs, with its b read once.
type tieKey struct {
	b   int64
	idx int32
}

func compareTies(p, q tieKey) int { return cmp.Or(cmp.Compare(p.b, q.b), cmp.Compare(p.idx, q.idx)) }

// sortTies orders a run of entries with one pair by b, then index. Each
// b is read once into tie (returned for reuse), and a run already in
// order is left alone: comparing through key read two records at random
// for every comparison, which on a history whose events chats each held
// hundreds of thousands of (one partition's) was most of event_order.
func sortTies(tie []tieKey, run []uint64, indexMask uint64, key func(int32) SortKey) []tieKey {
	sorted := true
	for _, o := range run {
		i := int32(o & indexMask)
		k := tieKey{b: key(i).B, idx: i}
		if len(tie) > 0 && compareTies(tie[len(tie)-1], k) > 0 {
			sorted = false
		}
		tie = append(tie, k)
	}
	if sorted {
		return tie
	}
	slices.SortFunc(tie, compareTies)
	pair := run[0] &^ indexMask
	for j, k := range tie {
		run[j] = pair | uint64(k.idx)
	}
	return tie
}

// Spans returns offsets such that sorted[sp[c]:sp[c+1]] are chat c's items;
// sorted must be ordered by chat.
func Spans(sorted []int32, nchats int32, chatOf func(int32) int32) []int32 {
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
