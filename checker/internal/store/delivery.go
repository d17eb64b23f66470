package store

import (
	"cmp"
	"slices"
	"strings"
	"sync"

	"github.com/chatseq/chatseq/checker/internal/columns"
	"github.com/chatseq/chatseq/history"
)

// The delivery plane's lines (history FORMAT.md, "Receivers"), as the Log
// takes them: what members' devices were pushed, acknowledged and
// settled, the chats' membership, and the final delivery_state table.
// The delivery invariants (eventual_visibility, identical_order,
// delivery_state_consistency, push_authorization, stream_continuity,
// stream_completeness) read them. What can
// be decided while the lines come (a push on a refused connection, to a
// user not a member) is, so that a check keeps per push only its record:
// 32 bytes, for a million pushes 32 MB.

// Delivery is the receivers' lines of one history.
type Delivery struct {
	Lines int // receiver lines taken, delivery_state rows included

	devIDs  map[string]int32
	Devs    []Device
	userIDs map[string]int32
	Users   []string
	chatIDs map[string]int32
	Chats   []string

	Pushes    columns.Chunked[Push] // one a (seq, message_id) a push carried
	PushLines int
	// WithContent counts the pushed messages whose push line gave their
	// payload hash or sender.
	WithContent int
	Acks        []Ack
	Rows        []StateRow // final delivery_state rows

	// Membership: every join and leave line, and who is a member now
	// (the join line) while the lines come.
	Members    []Membership
	membersNow map[MemberKey]int32
	everJoined map[MemberKey]bool
	leftAt     map[MemberKey]int32 // the leave line of a user not a member now
	leftTime   map[MemberKey]int64 // and its time
	Joins      int

	// recv is each (device, chat)'s highest sequence pushed so far.
	recv map[DevChat]uint64

	// Found while the lines came (push_authorization).
	Refused    LineCount // pushes on a connection whose identity was refused: push, connect
	NonMember  LineCount // pushes to a user never a member of the chat before, or streamed on a connection opened after it left: push, its device's connect
	AfterLeave int       // pushes to a user after it left the chat (not failed: in flight)
	// AfterLeavePushes are those pushes, one a message: whether each
	// could have been in flight is decided once the operations are known
	// (push_authorization: a message first sent after the leave was not).
	AfterLeavePushes []AfterLeavePush
	// BadFrames: connections a device ended on a frame in breach of the
	// push API (api_conformance): the disconnect line; the first's error.
	BadFrames     LineCount
	BadFrameError string
	AnyRefused    bool // some connect line was refused

	// StateReads are the state_read lines (read_authorization): of chats
	// a join line named before them, StateReadsOutside by users not
	// members then, and StateReadAnswered those of them answered, not
	// refused (the state_read line; the first's chat and user).
	StateReads, StateReadsJudged, StateReadsOutside int
	StateReadAnswered                               LineCount
	StateReadChat, StateReadUser                    string
	joinedChats                                     map[int32]bool

	// Set once the whole history is read (by checker, once the history is read).
	Cut       bool    // the final state was cut short: rows dropped
	LogChats  []int32 // the Log's number of each chat, -1: none
	StateRead int     // the delivery_state table_read line, 0: none

	viewOnce sync.Once
	view     *DeliveryView
}

// Devices says whether d holds a receiver line other than join and leave
// lines (or a delivery_state row): membership alone, as a run records it
// for send_authorization, is no delivery plane to judge.
func (d *Delivery) Devices() bool { return d != nil && d.Lines > len(d.Members)+d.StateReads }

// LineCount counts violations found while reading, keeping the first's
// lines.
type LineCount struct {
	N     int
	First []int
}

func (c *LineCount) add(lines ...int) {
	if c.N == 0 {
		c.First = lines
	}
	c.N++
}

// Device is one device: its user and the lines of its connection.
type Device struct {
	Name  string
	User  int32
	First int32 // its first connect line
	Open  int32 // its open connection's connect line; 0: none
	// openRefused: the open connection's identity was refused.
	OpenRefused bool
	Settled     int32 // its settled line; 0: it never settled
	SettledTime int64 // its settled line's time
	// settledConn is the connection open (and not refused) at its
	// settled line, 0: none.
	SettledConn int32
	Connects    int
	// Conns are its connect lines, in file order: a streamed push is on
	// the last one before it (ConnOf).
	Conns []Conn
}

// Conn is one connect line of a device.
type Conn struct {
	Line    int32
	Refused bool
	Time    int64
}

// ConnOf is the index in dev.Conns of the connection open at line (the
// last connect before it), -1: none.
func (dev *Device) ConnOf(line int32) int {
	i, _ := slices.BinarySearchFunc(dev.Conns, line, func(c Conn, l int32) int { return cmp.Compare(c.Line, l) })
	return i - 1
}

// Push is one (seq, message_id) pushed to a device.
type Push struct {
	Seq  uint64
	ID   uint64 // StringHash of the message id
	Line int32
	Dev  int32
	Chat int32
	// afterSettle: pushed after its device's settled line.
	AfterSettle bool
	CatchUp     bool
	// Payload and Sender are StringHash of the message's payload hash and
	// sender as the push line gave them, 0: not given.
	Payload, Sender uint64
}

// Ack is one delivery_ack line.
type Ack struct {
	Seq     uint64
	MaxRecv uint64 // the device's highest sequence of the chat pushed before it
	Line    int32
	Conn    int32 // the connection open when it was sent, 0: none
	Dev     int32
	Chat    int32
}

// MemberKey is a user in a chat.
type MemberKey struct{ Chat, User int32 }

// Membership is one join or leave line.
type Membership struct {
	MemberKey
	Line  int32
	Leave bool
}

// AfterLeavePush is a message pushed to a user after it left the chat,
// with no join since: the push line, the leave line and its time.
type AfterLeavePush struct {
	Dev, Chat int32
	Seq       uint64
	ID        uint64 // the message id's hash
	Line      int32
	Leave     int32
	LeaveTime int64
}

// StateRow is one final delivery_state row.
type StateRow struct {
	MemberKey
	Seq  uint64
	Line int32
}

// DevChat is a device's pushes of one chat.
type DevChat struct{ Dev, Chat int32 }

// NewDelivery is an empty Delivery, ready to Take lines.
func NewDelivery() *Delivery {
	return &Delivery{
		devIDs: map[string]int32{}, userIDs: map[string]int32{}, chatIDs: map[string]int32{},
		membersNow: map[MemberKey]int32{}, everJoined: map[MemberKey]bool{}, leftAt: map[MemberKey]int32{}, leftTime: map[MemberKey]int64{}, recv: map[DevChat]uint64{},
		joinedChats: map[int32]bool{},
	}
}

func intern(ids map[string]int32, names *[]string, s string) int32 {
	if id, ok := ids[s]; ok {
		return id
	}
	id := int32(len(*names))
	ids[s] = id
	*names = append(*names, s)
	return id
}

func (d *Delivery) user(s string) int32 { return intern(d.userIDs, &d.Users, s) }
func (d *Delivery) chat(s string) int32 { return intern(d.chatIDs, &d.Chats, s) }

// device is the device named s; the reader guarantees a device's lines
// come after its connect, which names its user.
func (d *Delivery) device(s string, user string) int32 {
	if id, ok := d.devIDs[s]; ok {
		return id
	}
	id := int32(len(d.Devs))
	d.devIDs[s] = id
	d.Devs = append(d.Devs, Device{Name: s, User: d.user(user)})
	return id
}

// Take takes one receiver line.
func (d *Delivery) Take(r *history.Receiver) {
	d.Lines++
	line := int32(r.Line)
	switch r.Kind {
	case history.KindConnect:
		dev := &d.Devs[d.device(r.Device, r.User)]
		if dev.First == 0 {
			dev.First = line
		}
		dev.Open, dev.OpenRefused = line, r.Refused
		dev.Connects++
		dev.Conns = append(dev.Conns, Conn{Line: line, Refused: r.Refused, Time: r.Time})
		d.AnyRefused = d.AnyRefused || r.Refused
	case history.KindDisconnect:
		if id, ok := d.devIDs[r.Device]; ok {
			d.Devs[id].Open, d.Devs[id].OpenRefused = 0, false
		}
		if strings.HasPrefix(r.Error, history.DisconnectBadFrame) {
			d.BadFrames.add(r.Line)
			if d.BadFrameError == "" {
				d.BadFrameError = r.Error
			}
		}
	case history.KindPush:
		d.push(r)
	case history.KindDeliveryAck:
		id, ok := d.devIDs[r.Device]
		if !ok {
			return // the reader refuses it
		}
		c := d.chat(r.Chat)
		dev := &d.Devs[id]
		conn := dev.Open
		if dev.OpenRefused {
			conn = 0
		}
		d.Acks = append(d.Acks, Ack{Seq: r.Seq, MaxRecv: d.recv[DevChat{id, c}], Line: line, Conn: conn, Dev: id, Chat: c})
	case history.KindSettled:
		if id, ok := d.devIDs[r.Device]; ok {
			dev := &d.Devs[id]
			dev.Settled, dev.SettledTime = line, r.Time
			if !dev.OpenRefused {
				dev.SettledConn = dev.Open
			}
		}
	case history.KindJoin:
		k := MemberKey{d.chat(r.Chat), d.user(r.User)}
		d.Members = append(d.Members, Membership{MemberKey: k, Line: line})
		d.membersNow[k] = line
		d.everJoined[k] = true
		d.joinedChats[k.Chat] = true
		d.Joins++
	case history.KindLeave:
		k := MemberKey{d.chat(r.Chat), d.user(r.User)}
		d.Members = append(d.Members, Membership{MemberKey: k, Line: line, Leave: true})
		delete(d.membersNow, k)
		d.leftAt[k], d.leftTime[k] = line, r.Time
	case history.KindStateRead:
		d.stateRead(r)
	case history.KindFinal:
		d.Rows = append(d.Rows, StateRow{MemberKey: MemberKey{d.chat(r.Chat), d.user(r.User)}, Seq: r.Seq, Line: line})
	}
}

func (d *Delivery) push(r *history.Receiver) {
	id, ok := d.devIDs[r.Device]
	if !ok {
		return // the reader refuses it
	}
	d.PushLines++
	c := d.chat(r.Chat)
	dev := &d.Devs[id]
	line := int32(r.Line)
	if !r.CatchUp && dev.OpenRefused && len(r.Seqs) > 0 {
		d.Refused.add(r.Line, int(dev.Open))
	}
	k := MemberKey{c, dev.User}
	switch {
	case len(r.Seqs) == 0: // nothing pushed, nothing to authorize
	case !d.everJoined[k]:
		d.NonMember.add(r.Line, int(dev.First))
	case d.membersNow[k] == 0 && !r.CatchUp && dev.Open > d.leftAt[k]:
		// Streamed on a connection opened after the user left: no
		// push of before the leave can be in flight on it.
		d.NonMember.add(r.Line, int(dev.Open))
	case d.membersNow[k] == 0:
		d.AfterLeave += len(r.Seqs)
		for i, s := range r.Seqs {
			d.AfterLeavePushes = append(d.AfterLeavePushes, AfterLeavePush{Dev: id, Chat: c, Seq: s, ID: pushedID(r, i), Line: line, Leave: d.leftAt[k], LeaveTime: d.leftTime[k]})
		}
	}
	dc := DevChat{id, c}
	top := d.recv[dc]
	for i, s := range r.Seqs {
		p := Push{Seq: s, ID: pushedID(r, i), Line: line, Dev: id, Chat: c, AfterSettle: dev.Settled > 0, CatchUp: r.CatchUp}
		if i < len(r.PayloadHashes) {
			p.Payload = StringHash(r.PayloadHashes[i])
		}
		if i < len(r.Senders) {
			p.Sender = StringHash(r.Senders[i])
		}
		if p.Payload != 0 || p.Sender != 0 {
			d.WithContent++
		}
		d.Pushes.Add(p)
		top = max(top, s)
	}
	d.recv[dc] = top
}

// stateRead judges a read of a chat's delivery_state: in a chat whose
// membership a join line recorded before it, one answered to a user who
// was not a member then is counted (read_authorization fails it).
func (d *Delivery) stateRead(r *history.Receiver) {
	d.StateReads++
	c, u := d.chat(r.Chat), d.user(r.User)
	if !d.joinedChats[c] {
		return
	}
	d.StateReadsJudged++
	if d.membersNow[MemberKey{c, u}] != 0 {
		return
	}
	d.StateReadsOutside++
	if r.Refused {
		return
	}
	if d.StateReadAnswered.N == 0 {
		d.StateReadChat, d.StateReadUser = r.Chat, r.User
	}
	d.StateReadAnswered.add(r.Line)
}

// pushedID is the hash of the id of the i-th message push r carried.
func pushedID(r *history.Receiver, i int) uint64 { return IDHashAt(r.IDHashes, r.MessageIDs, i) }

// DeliveryView is what the delivery invariants share, made once: every
// push sorted by device, chat, sequence and arrival (file order).
type DeliveryView struct {
	Sorted []int32 // indexes into pushes
	// Statistics: pushes of a (device, chat, seq) already pushed to the
	// device, and first arrivals below a sequence the device already had.
	Duplicates, OutOfOrder int
}

// SortedView is the pushes sorted, made once.
func (d *Delivery) SortedView() *DeliveryView {
	d.viewOnce.Do(func() {
		v := &DeliveryView{Sorted: make([]int32, d.Pushes.Len())}
		for i := range v.Sorted {
			v.Sorted[i] = int32(i)
		}
		slices.SortFunc(v.Sorted, func(a, b int32) int {
			pa, pb := d.Pushes.At(a), d.Pushes.At(b)
			return cmp.Or(cmp.Compare(pa.Dev, pb.Dev), cmp.Compare(pa.Chat, pb.Chat), cmp.Compare(pa.Seq, pb.Seq), cmp.Compare(a, b))
		})
		v.count(d)
		d.view = v
	})
	return d.view
}

// count fills the statistics: within each (device, chat), a push of a
// sequence already pushed is a duplicate; a first arrival, in file order,
// below the highest sequence already arrived is out of order.
func (v *DeliveryView) count(d *Delivery) {
	type arrival struct {
		at  int32 // its index in pushes: arrival order
		seq uint64
	}
	var firsts []arrival
	for i := 0; i < len(v.Sorted); {
		p := d.Pushes.At(v.Sorted[i])
		j := i
		firsts = firsts[:0]
		for ; j < len(v.Sorted); j++ {
			q := d.Pushes.At(v.Sorted[j])
			if q.Dev != p.Dev || q.Chat != p.Chat {
				break
			}
			if j > i && d.Pushes.At(v.Sorted[j-1]).Seq == q.Seq {
				v.Duplicates++
				continue
			}
			firsts = append(firsts, arrival{v.Sorted[j], q.Seq})
		}
		slices.SortFunc(firsts, func(a, b arrival) int { return cmp.Compare(a.at, b.at) })
		var top uint64
		for k, a := range firsts {
			if k > 0 && a.seq < top {
				v.OutOfOrder++
			}
			top = max(top, a.seq)
		}
		i = j
	}
}

// DeviceRange is where device dev's pushes of chat c are in the sorted
// view.
func (v *DeliveryView) DeviceRange(d *Delivery, dev, c int32) (lo, hi int) {
	key := func(i int32) DevChat { p := d.Pushes.At(i); return DevChat{p.Dev, p.Chat} }
	cmpKey := func(a, b DevChat) int { return cmp.Or(cmp.Compare(a.Dev, b.Dev), cmp.Compare(a.Chat, b.Chat)) }
	want := DevChat{dev, c}
	lo, _ = slices.BinarySearchFunc(v.Sorted, want, func(i int32, w DevChat) int { return cmpKey(key(i), w) })
	hi = lo
	for hi < len(v.Sorted) && key(v.Sorted[hi]) == want {
		hi++
	}
	return lo, hi
}
