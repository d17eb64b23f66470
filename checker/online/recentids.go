package online

import "time"

// recentIDs is sequence_uniqueness's other half online: one message id
// acknowledged at two sequences of a chat. It remembers the newest acks'
// (chat, message id) in two generations of a hash table: acks go into the
// current one, and once it holds recentIDsGeneration of them it becomes
// the previous one and the one before is emptied for the next. An id
// acknowledged again within recentIDsGeneration acks (the run's, every
// chat's) of its first is found, one further apart maybe not: the check
// after the run reads every ack. So what it holds is bounded (two tables
// of 2^17 slots, 24 bytes each, and their filters: 6.1 MiB) whatever the
// run's length. An index of every id would grow with the run; a service
// that names two messages alike (ids from a clock, say) does so within
// moments.
//
// The acks are looked up in batches, as the keys are (keybatch.go), in
// the order of their hashes' top bits, which are a table's slot: one by
// one, each ack's look-up was a cache miss, a tenth of the online check's
// CPU in a run. A batch keeps the file's order among acks of one top
// byte, so an id's acks are met in file order, and of the violations it
// finds the one with the earliest proving line is reported. Most acks are
// of an id never seen: a bit filter of each generation (64 KiB) spares
// most of them the look-up in the previous one.
type recentIDs struct {
	cur, prev             idTable
	curFilter, prevFilter []uint64
	waiting, scratch      []idSighting
	since                 time.Time // when the oldest waiting was added
}

const (
	// recentIDsGeneration is how many acks a generation holds at least:
	// 65,536, half a minute of a run at 2,000 sends a second.
	recentIDsGeneration = 1 << 16
	// recentIDsBatchMax is how many acks wait at most; a generation ends
	// at the end of a batch, so a table holds fewer than
	// recentIDsGeneration+recentIDsBatchMax acks, at most five eighths of
	// its recentIDsSlots.
	recentIDsBatchMax = 1 << 14
	recentIDsSlotsLog = 17
	// recentIDsFilterLog: a generation's filter has 2^19 bits, 8 an ack,
	// so an id never seen passes the previous generation's one time in
	// nine.
	recentIDsFilterLog = 19
)

// idSighting is an ack waiting: its (chat, message id) hash (idOfChat),
// sequence, line, time and chat.
type idSighting struct {
	id, seq uint64
	time    int64
	line    int32
	chat    int32
}

// idTable is a generation: open addressing from a slot the hash's top bits
// pick, probing the next slot.
type idTable struct {
	slots []idSlot
	n     int
}

// idSlot is an ack's (chat, message id) hash, its sequence and its line;
// a hash of 0 is an empty slot.
type idSlot struct {
	id   uint64
	seq  uint64
	line int32
}

// idOfChat mixes a chat's number into its message id's hash (ids are
// compared within a chat: another chat may use the same id). Never 0.
func idOfChat(chat int32, mid uint64) uint64 {
	h := (mid ^ uint64(uint32(chat))*0x9e3779b97f4a7c15) * 0xbf58476d1ce4e5b9
	h ^= h >> 31
	if h == 0 {
		h = 1
	}
	return h
}

// add puts an ack, the first of its sequence, in the batch, and says
// whether the batch is full.
func (r *recentIDs) add(chat int32, mid, seq uint64, line int32, at int64) (full bool) {
	if len(r.waiting) == 0 {
		r.since = time.Now()
	}
	r.waiting = append(r.waiting, idSighting{id: idOfChat(chat, mid), seq: seq, time: at, line: line, chat: chat})
	return len(r.waiting) >= recentIDsBatchMax
}

// idTwice is an ack whose id a generation held at another sequence.
type idTwice struct {
	earlier idSlot
	later   idSighting
}

// settle looks up and notes the acks waiting, and returns the one of an
// id already held at another sequence with the earliest line, if any.
func (r *recentIDs) settle() (first idTwice, found bool) {
	if r.cur.slots == nil {
		r.cur.slots, r.prev.slots = make([]idSlot, 1<<recentIDsSlotsLog), make([]idSlot, 1<<recentIDsSlotsLog)
		r.curFilter, r.prevFilter = make([]uint64, 1<<recentIDsFilterLog/64), make([]uint64, 1<<recentIDsFilterLog/64)
	}
	for _, s := range r.ordered() {
		if earlier, twice := r.sight(s.id, s.seq, s.line); twice && (!found || s.line < first.later.line) {
			first, found = idTwice{earlier, s}, true
		}
	}
	r.waiting = r.waiting[:0]
	if r.cur.n >= recentIDsGeneration {
		r.prev, r.cur = r.cur, r.prev
		r.prevFilter, r.curFilter = r.curFilter, r.prevFilter
		clear(r.cur.slots)
		clear(r.curFilter)
		r.cur.n = 0
	}
	return first, found
}

// ordered is the acks waiting by their hash's top byte, otherwise in file
// order (a stable counting pass).
func (r *recentIDs) ordered() []idSighting {
	return byTopByte(r.waiting, &r.scratch, func(s *idSighting) uint64 { return s.id })
}

// sight takes an ack of id at seq on line, and returns an earlier ack of
// the id at another sequence if a generation holds one.
func (r *recentIDs) sight(id, seq uint64, line int32) (earlier idSlot, twice bool) {
	s := r.cur.find(id)
	if s.id == id {
		return *s, s.seq != seq
	}
	w, bit := filterBit(id)
	if r.prevFilter[w]&bit != 0 {
		if p := r.prev.find(id); p.id == id {
			return *p, p.seq != seq
		}
	}
	*s = idSlot{id: id, seq: seq, line: line}
	r.cur.n++
	r.curFilter[w] |= bit
	return idSlot{}, false
}

// filterBit is id's bit in a generation's filter.
func filterBit(id uint64) (word int, bit uint64) {
	b := id >> (64 - recentIDsFilterLog)
	return int(b / 64), 1 << (b % 64)
}

// find is id's slot, or the empty slot it would take.
func (t *idTable) find(id uint64) *idSlot {
	const mask = 1<<recentIDsSlotsLog - 1
	for i := id >> (64 - recentIDsSlotsLog); ; i = (i + 1) & mask {
		if s := &t.slots[i]; s.id == id || s.id == 0 {
			return s
		}
	}
}

// settleIDs judges the acks waiting for their ids (recentIDs.settle).
func (o *Checker) settleIDs() {
	if t, found := o.recentIDs.settle(); found {
		o.violate(SequenceUniqueness, []int{int(t.earlier.line), int(t.later.line)}, t.later.time,
			"chat %q: one message id names two sequences: %d (line %d) and %d (line %d)", o.names[t.later.chat], t.earlier.seq, t.earlier.line, t.later.seq, t.later.line)
	}
}

// idElsewhere says whether chat's message id mid was acknowledged at
// another sequence than seq, as far as the newest acks' ids tell (the
// ids waiting settled first): the message's creator is then not the one
// persist a push's or a page's content is compared with (the check after
// the run takes the id's lowest sequence's; sequence_uniqueness fails
// it, and that is what is reported).
func (o *Checker) idElsewhere(chat int32, mid, seq uint64) bool {
	o.settleIDs()
	r := &o.recentIDs
	if r.cur.slots == nil {
		return false
	}
	id := idOfChat(chat, mid)
	for _, t := range []*idTable{&r.cur, &r.prev} {
		if s := t.find(id); s.id == id && s.seq != seq {
			return true
		}
	}
	return false
}
