package online

// recentIDs is sequence_uniqueness's other half online: one message id
// acknowledged at two sequences of a chat. It remembers the newest acks'
// (chat, message id) in two generations of a hash table: acks go into the
// current one, and when it holds recentIDsGeneration of them it becomes
// the previous one and the one before is emptied for the next. An id
// acknowledged again within recentIDsGeneration acks (the run's, every
// chat's) of its first is found, one further apart maybe not: the check
// after the run reads every ack. So what it holds is bounded (two tables
// of at most 2*recentIDsGeneration slots, 24 bytes each: 6 MiB) whatever
// the run's length. An index of every id would grow with the run; a
// service that names two messages alike (ids from a clock, say) does so
// within moments.
type recentIDs struct {
	cur, prev idTable
}

// recentIDsGeneration is how many acks a generation holds: 65,536, half
// a minute of a run at 2,000 sends a second.
const recentIDsGeneration = 1 << 16

// idTable is a generation: open addressing, probing the next slot, at
// most half full.
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

// sight takes the first ack of its sequence, of id (idOfChat) at seq on
// line, and returns an earlier ack of the id at another sequence if a
// generation still holds one.
func (r *recentIDs) sight(id, seq uint64, line int32) (earlier idSlot, twice bool) {
	if s := r.cur.find(id); s != nil && s.id == id {
		return *s, s.seq != seq
	}
	if p := r.prev.find(id); p != nil && p.id == id {
		return *p, p.seq != seq
	}
	if 2*(r.cur.n+1) > len(r.cur.slots) {
		r.cur.grow()
	}
	*r.cur.find(id) = idSlot{id: id, seq: seq, line: line}
	r.cur.n++
	if r.cur.n == recentIDsGeneration {
		r.prev, r.cur = r.cur, r.prev
		r.cur.empty()
	}
	return idSlot{}, false
}

// find is id's slot, or the empty slot it would take; nil in a table
// with none.
func (t *idTable) find(id uint64) *idSlot {
	if len(t.slots) == 0 {
		return nil
	}
	mask := uint64(len(t.slots) - 1)
	for i := id & mask; ; i = (i + 1) & mask {
		if s := &t.slots[i]; s.id == id || s.id == 0 {
			return s
		}
	}
}

// grow doubles the table (from 1,024 slots), keeping what it holds.
func (t *idTable) grow() {
	old := t.slots
	t.slots = make([]idSlot, max(1024, 2*len(old)))
	for _, s := range old {
		if s.id != 0 {
			*t.find(s.id) = s
		}
	}
}

// empty makes the table hold nothing, keeping its slots for the next
// generation.
func (t *idTable) empty() {
	clear(t.slots)
	t.n = 0
}
