package store

// AckBounds are a (chat, user)'s delivery acknowledgements: the highest of
// all (Top), and the highest sent on a connection open until its device
// settled (Kept), with their lines.
type AckBounds struct {
	Top, Kept         uint64
	TopLine, KeptLine int32
	KeptSettled       int32
	HasTop, HasKept   bool
}

// AckBoundsByMember gathers the acknowledgements' bounds of every (chat,
// user) a device of the user acknowledged.
func (d *Delivery) AckBoundsByMember() map[MemberKey]*AckBounds {
	bounds := map[MemberKey]*AckBounds{}
	for i := range d.Acks {
		a := &d.Acks[i]
		dev := &d.Devs[a.Dev]
		k := MemberKey{Chat: a.Chat, User: dev.User}
		b := bounds[k]
		if b == nil {
			b = &AckBounds{}
			bounds[k] = b
		}
		if !b.HasTop || a.Seq > b.Top {
			b.Top, b.TopLine, b.HasTop = a.Seq, a.Line, true
		}
		if dev.Settled > 0 && a.Line < dev.Settled && a.Conn != 0 && a.Conn == dev.SettledConn && (!b.HasKept || a.Seq > b.Kept) {
			b.Kept, b.KeptLine, b.KeptSettled, b.HasKept = a.Seq, a.Line, dev.Settled, true
		}
	}
	return bounds
}
