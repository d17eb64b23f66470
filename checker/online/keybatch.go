package online

import (
	"time"
)

// The key tables are looked up in batches. A persist's key is new almost
// every time, and a chat's table and its runs' filters are a few hundred
// kilobytes: looked up as the answers came, each key cost a cache miss or
// two, the largest part of the online check's CPU in a run. Looked up a
// chat at a time in the order of their hashes' top bits, the table's
// slots and the filters' blocks are read front to back.
//
// What a batch judges is what the answers in it would have been judged
// one by one: a chat's answers keep their order among those of the same
// hash bits (the bucketing is stable), so a key's answers are met in file
// order, and what each compares with (the sequence's first ack, noted as
// the answer came) is fixed by then. Of the violations a batch finds, the
// one with the earliest proving line is reported, as one by one would.
// A batch is judged once it holds keyBatchMax answers, when the tap hands
// over a small write or the oldest answer waited keyBatchWait (Checker.
// BatchDone), and before anything reports what was found (Violations,
// CloseSpill): a violation still shows well within a second.

const (
	// keyBatchMax is how many answers a batch holds at most.
	keyBatchMax = 1 << 16
	// keyBatchWait is how long the oldest answer of a batch waits at most
	// for its batch to fill, checked as the tap hands over each write.
	keyBatchWait = 50 * time.Millisecond
	// keyBatchSmallWrite is a write of fewer lines than this: the
	// recorder's timed flush of a run going slowly, after which there may
	// be no more lines for a while. Its batch is judged at once.
	keyBatchSmallWrite = 4096
)

// keyAnswer is an ok answer of a persist with a key, waiting to be looked
// up: its chat, the key's hashes, the answer, and whether its sequence's
// first ack was another answer's.
type keyAnswer struct {
	k1, k2  uint64
	answer  ackSeen
	chat    int32
	earlier bool
}

// keyBatch is the answers waiting, in file order.
type keyBatch struct {
	waiting []keyAnswer
	since   time.Time // when the oldest was added
	scratch []keyAnswer
	perChat []int
}

// add appends an answer, written in place field by field (ackSeen.setTo).
func (b *keyBatch) add(k1, k2 uint64, a *ackSeen, chat int32, earlier bool) {
	if len(b.waiting) == 0 {
		b.since = time.Now()
	}
	b.waiting = append(b.waiting, keyAnswer{})
	w := &b.waiting[len(b.waiting)-1]
	w.k1, w.k2, w.chat, w.earlier = k1, k2, chat, earlier
	w.answer.setTo(a)
}

// ordered is the answers waiting by chat and, in a chat, by their k1's
// top byte, and otherwise in file order: two stable counting passes, the
// second by chat (of chats).
func (b *keyBatch) ordered(chats int) []keyAnswer {
	byTop := byTopByte(b.waiting, &b.scratch, func(a *keyAnswer) uint64 { return a.k1 })
	if cap(b.perChat) < chats+1 {
		b.perChat = make([]int, chats+1)
	}
	perChat := b.perChat[:chats+1]
	clear(perChat)
	for i := range byTop {
		perChat[byTop[i].chat+1]++
	}
	for i := 1; i < len(perChat); i++ {
		perChat[i] += perChat[i-1]
	}
	out := b.waiting
	for i := range byTop {
		c := byTop[i].chat
		out[perChat[c]] = byTop[i]
		perChat[c]++
	}
	return out
}

// BatchDone is told that the tap handed over a write of lines
// (history.BatchSink): the keys (and the ids, recentids.go) waiting are
// judged if the write was small or the oldest has waited keyBatchWait.
func (o *Checker) BatchDone(lines int) {
	if len(o.keyed.waiting) > 0 && (lines < keyBatchSmallWrite || time.Since(o.keyed.since) >= keyBatchWait) {
		o.settleKeys()
	}
	if len(o.recentIDs.waiting) > 0 && (lines < keyBatchSmallWrite || time.Since(o.recentIDs.since) >= keyBatchWait) {
		o.settleIDs()
	}
}

// settleWaiting judges the keys and the ids waiting.
func (o *Checker) settleWaiting() {
	if len(o.keyed.waiting) > 0 {
		o.settleKeys()
	}
	if len(o.recentIDs.waiting) > 0 {
		o.settleIDs()
	}
}

// settleKeys looks up the keys of every answer waiting, a chat at a time
// in hash order, as ack would have one by one.
func (o *Checker) settleKeys() {
	var worst struct {
		found       bool
		chat        int32
		first, last ackSeen
	}
	for _, k := range o.keyed.ordered(len(o.names)) {
		a := k.answer
		fp := keyFP{k.chat, k.k1, k.k2 &^ keyMarked}
		if slot, found := o.keys[k.chat].find(k.k1, k.k2, a.seq, o.spill); !found {
			if k.earlier { // its sequence's first ack is another's: keep its own
				slot.k2 |= keyMarked
				o.keyFirst[fp] = a
			}
		} else if first := o.firstAnswer(k.chat, slot, fp); (first.seq != a.seq || first.mid != a.mid) && (!worst.found || a.doneLine < worst.last.doneLine) {
			worst.found, worst.chat, worst.first, worst.last = true, k.chat, first, a
		}
	}
	o.keyed.waiting = o.keyed.waiting[:0]
	if worst.found {
		first, a := worst.first, worst.last
		o.violate(IdempotencyGuarantee, []int{int(first.doneLine), int(a.doneLine)}, a.done,
			"chat %q: one key (sender and key of the persist invoked at line %d) answered seq %d (line %d) and seq %d (line %d)", o.names[worst.chat], a.invLine, first.seq, first.doneLine, a.seq, a.doneLine)
	}
}

// byTopByte is in ordered by the top byte of each one's hash, otherwise
// in their order (a stable counting pass), written into *scratch (grown
// to in's length as need be).
func byTopByte[T any](in []T, scratch *[]T, hash func(*T) uint64) []T {
	var at [257]int
	for i := range in {
		at[hash(&in[i])>>56+1]++
	}
	for i := 1; i < len(at); i++ {
		at[i] += at[i-1]
	}
	if cap(*scratch) < len(in) {
		*scratch = make([]T, len(in), cap(in))
	}
	out := (*scratch)[:len(in)]
	for i := range in {
		top := hash(&in[i]) >> 56
		out[at[top]] = in[i]
		at[top]++
	}
	return out
}
