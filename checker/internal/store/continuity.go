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
}

// FirstStreamHole walks each connection's streamed pushes (not caught
// up), by chat, along the chat's final events in the topic's order
// (partition, offset), and returns the first event missing between two
// the connection was streamed, nil: none. A hole during which the user
// joined or left the chat is not one, nor one whose after side was streamed
// first (a copy of a message the topic holds twice).
func (x *Index) FirstStreamHole(d *Delivery) (*StreamHole, StreamScan) {
	var s StreamScan
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
	topics := map[int32][]int32{} // a Log chat's events in the topic's order
	topic := func(lc int32) []int32 {
		if t, ok := topics[lc]; ok {
			return t
		}
		t := slices.Clone(x.Events[x.EventSpan[lc]:x.EventSpan[lc+1]])
		slices.SortStableFunc(t, func(a, b int32) int {
			ea, eb := x.EvPos.At(x.Fin.At(a).EventPos), x.EvPos.At(x.Fin.At(b).EventPos)
			return cmp.Or(cmp.Compare(ea.Partition, eb.Partition), cmp.Compare(ea.Offset, eb.Offset))
		})
		topics[lc] = t
		return t
	}
	type msgKey struct{ seq, id uint64 }
	// The stream's messages: their first push line, and where in the
	// stream (the push's index: a push line may carry several).
	type pushed struct{ line, at int32 }
	got := map[msgKey]pushed{}
	pushedAt := func(f int32) (pushed, bool) {
		e := x.Fin.At(f)
		p, ok := got[msgKey{e.Seq, x.MidHash[e.MessageID]}]
		return p, ok
	}
	for i := 0; i < len(pushes); {
		first := d.Pushes.At(pushes[i].at)
		j := i
		clear(got)
		for ; j < len(pushes); j++ {
			p := d.Pushes.At(pushes[j].at)
			if p.Dev != first.Dev || p.Chat != first.Chat || pushes[j].conn != pushes[i].conn {
				break
			}
			if _, ok := got[msgKey{p.Seq, p.ID}]; !ok {
				got[msgKey{p.Seq, p.ID}] = pushed{p.Line, pushes[j].at}
			}
		}
		dev, conn := &d.Devs[first.Dev], pushes[i].conn
		i = j
		lc := x.LogChat(d, first.Chat)
		if lc < 0 {
			continue
		}
		s.Streams++
		t := topic(lc)
		before, hole := -1, -1 // the last event streamed, the first missing after it
		for k, f := range t {
			at, ok := pushedAt(f)
			if !ok {
				if before >= 0 && hole < 0 {
					hole = k
				}
				continue
			}
			s.Judged++
			if hole >= 0 {
				prev, _ := pushedAt(t[before])
				// An after side streamed no later than the before side
				// matched another copy of a message the topic holds twice
				// (at-least-once: a relay restarted before its mark
				// publishes again): the connection, streamed in the topic's
				// order, was streamed the copy earlier in the topic, so what
				// lies between is no proof of a skip.
				if at.at > prev.at && !d.membershipChanged(first.Chat, dev.User, prev.line, at.line) {
					return &StreamHole{Dev: first.Dev, Chat: first.Chat, Connect: dev.Conns[conn].Line, BeforePush: prev.line, AfterPush: at.line,
						Before: t[before], Missing: t[hole], After: f}, s
				}
			}
			before, hole = k, -1
		}
	}
	return nil, s
}

// membershipChanged: a join or leave line of the user in chat c lies
// between lines a and b.
func (d *Delivery) membershipChanged(c, user, a, b int32) bool {
	lo, hi := min(a, b), max(a, b)
	return slices.ContainsFunc(d.Members, func(m Membership) bool {
		return m.Chat == c && m.User == user && m.Line > lo && m.Line < hi
	})
}
