package store

import (
	"cmp"
	"slices"
)

// LiveStream is a settled device's connection that stayed open to its
// settled line and streamed a chat its user was a member of throughout
// (stream_completeness): what was sent to the chat after First must have
// been streamed on it.
type LiveStream struct {
	Dev, Chat int32
	Connect   int32 // the connection's connect line
	First     int32 // its first streamed push line of the chat
	FirstSeq  uint64
	Pushes    []int32 // the device's pushes of the chat by sequence (SortedView)
}

// LiveStreams lists the live streams: for each device with a settled line
// and a connection open (not refused) at it, each chat that connection
// was streamed (a push line without "catch_up") before the settled line,
// when the user joined the chat before the connect line and no join or
// leave of theirs in the chat lies between the connect and settled lines.
func (d *Delivery) LiveStreams() []LiveStream {
	view := d.SortedView()
	lines := map[MemberKey][]Membership{}
	for _, m := range d.Members {
		lines[m.MemberKey] = append(lines[m.MemberKey], m)
	}
	var out []LiveStream
	for i := 0; i < len(view.Sorted); {
		p := d.Pushes.At(view.Sorted[i])
		dev := &d.Devs[p.Dev]
		lo, hi := view.DeviceRange(d, p.Dev, p.Chat)
		i = hi
		if dev.SettledConn == 0 {
			continue
		}
		ls := LiveStream{Dev: p.Dev, Chat: p.Chat, Connect: dev.SettledConn, Pushes: view.Sorted[lo:hi]}
		for _, at := range ls.Pushes {
			q := d.Pushes.At(at)
			if !q.CatchUp && q.Line > ls.Connect && q.Line < dev.Settled && (ls.First == 0 || q.Line < ls.First) {
				ls.First, ls.FirstSeq = q.Line, q.Seq
			}
		}
		if ls.First == 0 {
			continue
		}
		if memberOver(lines[MemberKey{p.Chat, dev.User}], ls.Connect, dev.Settled) {
			out = append(out, ls)
		}
	}
	return out
}

// memberOver reports whether the user's membership lines of a chat
// (file order) make them a member at from, and none lies between from
// and to.
func memberOver(ms []Membership, from, to int32) bool {
	member := false
	for _, m := range ms {
		switch {
		case m.Line < from:
			member = !m.Leave
		case m.Line < to:
			return false
		}
	}
	return member
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
