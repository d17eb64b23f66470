package store

import (
	"cmp"
	"slices"
)

// LiveStream is a settled device's connection that stayed open to its
// settled line, and a chat its user was a member of throughout
// (stream_completeness): what was sent to the chat once the connection
// streamed it must have been streamed on it.
type LiveStream struct {
	Dev, Chat int32
	Connect   int32 // the connection's connect line
	// First is its first streamed push line of the chat, 0: it streamed
	// nothing of it.
	First    int32
	FirstSeq uint64
	// The connect and settled lines' times: a connection that streamed
	// nothing of the chat is judged by them.
	ConnectTime, SettledTime int64
	Pushes                   []int32 // the device's pushes of the chat by sequence (SortedView)
}

// LiveStreams lists the live streams: for each device with a settled line
// and a connection open (not refused) at it, each chat its user joined
// before the connect line with no join or leave of theirs in the chat
// between the connect and settled lines, and that connection's first
// streamed push of the chat (a push line without "catch_up") before the
// settled line, if any.
func (d *Delivery) LiveStreams() []LiveStream {
	view := d.SortedView()
	lines := d.membershipsByMember()
	chatsOf := map[int32][]int32{} // by user, ascending
	for k := range lines {
		chatsOf[k.User] = append(chatsOf[k.User], k.Chat)
	}
	for _, chats := range chatsOf {
		slices.Sort(chats)
	}
	var out []LiveStream
	for dv := range d.Devs {
		dev := &d.Devs[dv]
		if dev.SettledConn == 0 {
			continue
		}
		for _, c := range chatsOf[dev.User] {
			if _, ok := memberThroughout(lines[MemberKey{c, dev.User}], dev.SettledConn, dev.Settled); !ok {
				continue
			}
			lo, hi := view.DeviceRange(d, int32(dv), c)
			ls := LiveStream{Dev: int32(dv), Chat: c, Connect: dev.SettledConn, SettledTime: dev.SettledTime, Pushes: view.Sorted[lo:hi]}
			if i := dev.ConnOf(dev.SettledConn + 1); i >= 0 {
				ls.ConnectTime = dev.Conns[i].Time
			}
			for _, at := range ls.Pushes {
				q := d.Pushes.At(at)
				if !q.CatchUp && q.Line > ls.Connect && q.Line < dev.Settled && (ls.First == 0 || q.Line < ls.First) {
					ls.First, ls.FirstSeq = q.Line, q.Seq
				}
			}
			out = append(out, ls)
		}
	}
	return out
}

// memberThroughout reports whether the user's membership lines of a chat
// (file order) make them a member at from, and none lies between from
// and to; join is the line of the join in force at from. The one reading
// of membership intervals: MembersThroughout and LiveStreams take it.
func memberThroughout(ms []Membership, from, to int32) (join int32, ok bool) {
	member := false
	for _, m := range ms {
		switch {
		case m.Line < from:
			member, join = !m.Leave, m.Line
		case m.Line < to:
			return 0, false
		}
	}
	return join, member
}

// StreamedOn reports whether (s, id) was streamed on ls's connection
// before settled, its device's settled line, and whether the device
// received it at all before then (streamed or caught up).
func (d *Delivery) StreamedOn(ls *LiveStream, settled int32, s, id uint64) (streamed, received bool) {
	k, _ := slices.BinarySearchFunc(ls.Pushes, s, func(i int32, s uint64) int { return cmp.Compare(d.Pushes.At(i).Seq, s) })
	for ; k < len(ls.Pushes); k++ {
		p := d.Pushes.At(ls.Pushes[k])
		if p.Seq != s {
			break
		}
		if p.ID != id || p.Line > settled {
			continue
		}
		received = true
		if !p.CatchUp && p.Line > ls.Connect {
			return true, true
		}
	}
	return false, received
}
