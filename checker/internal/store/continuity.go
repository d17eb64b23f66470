package store

import (
	"cmp"
	"slices"
)

// StreamHole is a live connection's skipped message (stream_continuity):
// the connection of Dev opened at Connect was streamed chat Chat's
// events Before and After (final events lines, by their push lines
// BeforePush and AfterPush) but not Missing, between them in the topic.
type StreamHole struct {
	Dev, Chat                      int32
	Connect, BeforePush, AfterPush int32
	Before, Missing, After         int32 // indexes into Fin
}

// StreamScan is what FirstStreamHole looked at.
type StreamScan struct {
	Streamed int // messages streamed on a connection not refused
	Streams  int // (connection, chat)s judged
	Judged   int // events of the topic a connection was streamed
	// Unjudged counts the streams left unjudged past a message the topic
	// holds more than MaxAlignments times; Heavy is the first such: its
	// chat, sequence and copies.
	Unjudged int
	Heavy    struct {
		Chat   int32
		Seq    uint64
		Copies int
	}
	// Unread counts the streams not judged because their chat's topic
	// order is not known (unread said so: two of its events at one
	// partition and offset); UnreadChat is the first such stream's chat
	// (a log chat), -1: none.
	Unread     int
	UnreadChat int32
}

// FirstStreamHole matches each connection's streamed pushes (not caught
// up), by chat, against the chat's final events in the topic's order
// (partition, offset), copies included, and returns the first event a
// connection skipped, nil: none. A gateway feeds a connection the topic
// from the moment it subscribes, so one connection's stream of a chat is
// a contiguous run of that order: it is aligned where it matches longest
// (a message the topic holds twice may start it at either copy), and the
// first event of the run it lacks, when the message streamed instead
// comes later in the topic, is a skip. A stream that goes back instead
// (a message it was streamed before) is no proof of a skip: it is aligned
// anew from there. A hole during which the user joined or left the chat
// is not one. A chat whose topic order is not known (unread(lc): two of
// its events at one partition and offset, so which came first is not
// known) is not judged: a stream of it that the topic holds a message of
// is counted in Unread instead.
func (x *Index) FirstStreamHole(d *Delivery, unread func(lc int32) bool) (*StreamHole, StreamScan) {
	s := StreamScan{UnreadChat: -1}
	type streamed struct{ conn, at int32 }
	var pushes []streamed
	for i := range int32(d.Pushes.Len()) {
		p := d.Pushes.At(i)
		if p.CatchUp {
			continue
		}
		dev := &d.Devs[p.Dev]
		if c := dev.ConnOf(p.Line); c >= 0 && !dev.Conns[c].Refused {
			pushes = append(pushes, streamed{int32(c), i})
		}
	}
	s.Streamed = len(pushes)
	slices.SortFunc(pushes, func(a, b streamed) int {
		pa, pb := d.Pushes.At(a.at), d.Pushes.At(b.at)
		return cmp.Or(cmp.Compare(pa.Dev, pb.Dev), cmp.Compare(pa.Chat, pb.Chat), cmp.Compare(a.conn, b.conn), cmp.Compare(a.at, b.at))
	})
	memberships := d.membershipsByMember()
	topics := map[int32][]*chatTopic{}
	topicsOf := func(lc int32) []*chatTopic {
		if ts, ok := topics[lc]; ok {
			return ts
		}
		ts := x.newChatTopics(lc)
		topics[lc] = ts
		return ts
	}
	var all, run []streamedMsg
	for i := 0; i < len(pushes); {
		first := d.Pushes.At(pushes[i].at)
		dev, conn := &d.Devs[first.Dev], pushes[i].conn
		var ts []*chatTopic
		lc := x.LogChat(d, first.Chat)
		if lc >= 0 {
			ts = topicsOf(lc)
		}
		all = all[:0]
		j := i
		for ; j < len(pushes); j++ {
			p := d.Pushes.At(pushes[j].at)
			if p.Dev != first.Dev || p.Chat != first.Chat || pushes[j].conn != conn {
				break
			}
			all = append(all, streamedMsg{msgKey{p.Seq, p.ID}, p.Line})
		}
		i = j
		if lc >= 0 && unread(lc) {
			// Judged with the two events at one offset taken in sequence
			// order (the stable sort below), such a stream failed or
			// passed on that guess (an outside tester's histories).
			if holdsAny(ts, all) {
				if s.Unread == 0 {
					s.UnreadChat = lc
				}
				s.Unread++
			}
			continue
		}
		counted := false
		// Each partition's events apart: a gateway reads a chat's
		// partitions side by side, so the stream interleaves them as it
		// will, and keeps each one's offset order.
		for _, t := range ts {
			// A message the partition does not hold is another's, or
			// other invariants' (identical_order, push_authorization): no
			// event to align.
			run = run[:0]
			for _, m := range all {
				if len(t.at[m.key]) > 0 {
					run = append(run, m)
				}
			}
			if len(run) == 0 {
				continue
			}
			if !counted {
				s.Streams++
				counted = true
			}
			s.Judged += len(run)
			h, heavy := t.firstSkip(run, memberships[MemberKey{first.Chat, dev.User}])
			if heavy != nil && h == nil {
				if s.Unjudged == 0 {
					s.Heavy.Chat, s.Heavy.Seq, s.Heavy.Copies = first.Chat, heavy.seq, len(t.at[*heavy])
				}
				s.Unjudged++
			}
			if h != nil {
				return &StreamHole{Dev: first.Dev, Chat: first.Chat, Connect: dev.Conns[conn].Line, BeforePush: h.beforeLine, AfterPush: h.afterLine,
					Before: t.order[h.before], Missing: t.order[h.before+1], After: t.order[h.after]}, s
			}
		}
	}
	return nil, s
}

type msgKey struct{ seq, id uint64 }

// holdsAny says whether some partition of ts holds a message of msgs.
func holdsAny(ts []*chatTopic, msgs []streamedMsg) bool {
	for _, t := range ts {
		for _, m := range msgs {
			if len(t.at[m.key]) > 0 {
				return true
			}
		}
	}
	return false
}

// streamedMsg is one message a connection was streamed, and its push line.
type streamedMsg struct {
	key  msgKey
	line int32
}

// chatTopic is one chat's final events in one partition, in offset
// order, and where each message stands in it (every copy).
type chatTopic struct {
	order []int32 // indexes into Fin
	keys  []msgKey
	at    map[msgKey][]int32 // positions in order, ascending
}

// newChatTopics is chat lc's events, a chatTopic a partition, in
// partition order.
func (x *Index) newChatTopics(lc int32) []*chatTopic {
	order := slices.Clone(x.Events[x.EventSpan[lc]:x.EventSpan[lc+1]])
	pos := func(f int32) *evPos { return x.EvPos.At(x.Fin.At(f).EventPos) }
	slices.SortStableFunc(order, func(a, b int32) int {
		ea, eb := pos(a), pos(b)
		return cmp.Or(cmp.Compare(ea.Partition, eb.Partition), cmp.Compare(ea.Offset, eb.Offset))
	})
	var ts []*chatTopic
	for lo := 0; lo < len(order); {
		hi := lo + 1
		for hi < len(order) && pos(order[hi]).Partition == pos(order[lo]).Partition {
			hi++
		}
		part := order[lo:hi:hi]
		t := &chatTopic{order: part, keys: make([]msgKey, len(part)), at: map[msgKey][]int32{}}
		for p, f := range part {
			e := x.Fin.At(f)
			k := msgKey{e.Seq, x.MidHash[e.MessageID]}
			t.keys[p] = k
			t.at[k] = append(t.at[k], int32(p))
		}
		ts = append(ts, t)
		lo = hi
	}
	return ts
}

// MaxAlignments bounds the copies of one message a run is tried at: a
// topic holding a message more often than this leaves the run unjudged
// past it rather than costing time quadratic in its copies (and the
// invariant unknown, unless another run skipped).
const MaxAlignments = 64

// skip is a run's first skipped event: the positions in the topic of the
// last event matched and of the one streamed after it, later in the topic.
type skip struct {
	before, after         int32
	beforeLine, afterLine int32
}

// firstSkip aligns run with the topic and returns a skip, nil when some
// alignment of the run has none. Every alignment is tried at once: the
// positions the run can stand at after each message (a message the
// topic holds twice may stand at either copy). From a position, the next
// message stands just after it (contiguous), or, when the topic holds it
// nowhere after that position, at any of its copies (the stream went
// back: aligned anew); a copy further on with events between is a skip.
// Across a join or leave of the user (memberships, its lines of the
// chat, in file order) the stream may have been stopped and started again:
// the next message may stand at any of its copies, and no skip is
// claimed. Taking the alignment that matched longest first, as this did
// before, failed a stream that joined at a later copy and went back by
// one, and one contiguous across a leave whose next message lay at a
// later copy (the independent delivery oracle, checker/oracle/delivery,
// found both). heavy, unless nil, is the message of more than
// MaxAlignments copies past which the run was not judged.
func (t *chatTopic) firstSkip(run []streamedMsg, memberships []Membership) (h *skip, heavy *msgKey) {
	if len(run) == 0 {
		return nil, nil
	}
	at := t.at[run[0].key]
	if len(at) > MaxAlignments {
		return nil, &run[0].key
	}
	stand := slices.Clone(at) // where the run may stand, ascending
	var next []int32
	m := 0 // memberships before run[i-1]'s push line are behind
	for i := 1; i < len(run); i++ {
		copies := t.at[run[i].key]
		if len(copies) > MaxAlignments {
			return nil, &run[i].key
		}
		for m < len(memberships) && memberships[m].Line < run[i-1].line {
			m++
		}
		if m < len(memberships) && memberships[m].Line < run[i].line {
			stand = append(stand[:0], copies...) // aligned anew across a join or leave
			continue
		}
		next = next[:0]
		anew := false
		for _, p := range stand {
			if copies[len(copies)-1] <= p {
				anew = true // nowhere after p: it went back
				break
			}
			if _, ok := slices.BinarySearch(copies, p+1); ok {
				next = append(next, p+1)
			}
		}
		if anew {
			next = append(next[:0], copies...)
		}
		if len(next) == 0 {
			// Every alignment skips: from the furthest, the first copy
			// after it.
			p := stand[len(stand)-1]
			k, _ := slices.BinarySearch(copies, p+1)
			return &skip{before: p, after: copies[k], beforeLine: run[i-1].line, afterLine: run[i].line}, nil
		}
		stand, next = next, stand
	}
	return nil, nil
}
