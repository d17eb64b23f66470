package online

import (
	"strings"

	"github.com/chatseq/chatseq/checker/internal/store"
	"github.com/chatseq/chatseq/history"
)

// IdenticalOrder is ADR-001's "Per-Chat Total Order", PushAuthorization
// the push channel's security promise and DeliveryStateConsistency
// ADR-001 Appendix C's, as HISTORY.md names them.
const (
	IdenticalOrder           = "identical_order"
	PushAuthorization        = "push_authorization"
	DeliveryStateConsistency = "delivery_state_consistency"
)

// pushes is what identical_order's online rules keep: per chat, the first
// message id pushed at each sequence, and the first sequence each id was
// pushed at (to any device), with the push line that showed it.
type pushes struct {
	devices map[string]*device // devices that connected: the check ignores pushes to others
	bySeq   map[chatSeq]pushSeen
	byID    map[chatID]pushSeen
	// joined: the (chat, user) pairs a join line named so far, with
	// the last such line, and how many join lines there were
	// (push_authorization, send_authorization).
	joined map[member]int32
	joins  int
	// left: the leave line of a (chat, user) not a member now.
	left map[member]int32
	// received: per (device, chat), the highest sequence pushed to the
	// device so far, streamed or caught up (delivery_state_consistency):
	// one number per device and chat, whatever the run's length.
	received map[devChat]uint64
}

type devChat struct{ dev, chat int32 }

// device is a connected device as push_authorization reads it.
type device struct {
	id          int32  // in the order devices first connected
	user        string // its first connect's
	userID      int32  // user's number
	first, open int32  // its first connect line; its open connection's (0: none)
	refused     bool   // the open connection's identity was refused
}

// member is a (chat, user) pair, the user by its number (Checker.users):
// looked up at every persist, a pair holding the user's name cost a
// string hash each.
type member struct {
	chat, user int32
}

// userOf is the number of a user some join or connect line named, or -1:
// one never named is a member of no chat.
func (o *Checker) userOf(name string) int32 {
	if id, ok := o.users[name]; ok {
		return id
	}
	return -1
}

// namedUser is name's number, given it if it had none.
func (o *Checker) namedUser(name string) int32 {
	if id, ok := o.users[name]; ok {
		return id
	}
	if o.users == nil {
		o.users = map[string]int32{}
	}
	id := int32(len(o.users))
	o.users[strings.Clone(name)] = id
	return id
}

type chatID struct {
	chat int32
	id   uint64
}

type pushSeen struct {
	id, seq uint64
	line    int32
}

// Receiver takes a receiver line (history.ReceiverSink): a push proves
// identical_order broken when it gives a chat's sequence another message
// id than a push before it did, to any device, or one message id another
// sequence. The check after the run fails both whatever the final state
// holds; it also compares each push with the final messages table, which
// is left to it.
func (o *Checker) Receiver(r *history.Receiver) {
	p := &o.pushes
	if p.devices == nil {
		*p = pushes{devices: map[string]*device{}, bySeq: map[chatSeq]pushSeen{}, byID: map[chatID]pushSeen{}, joined: map[member]int32{},
			left: map[member]int32{}, received: map[devChat]uint64{}}
	}
	line := int32(r.Line)
	switch r.Kind {
	case history.KindConnect:
		dev := p.devices[r.Device]
		if dev == nil {
			dev = &device{id: int32(len(p.devices)), user: strings.Clone(r.User), userID: o.namedUser(r.User), first: line}
			p.devices[strings.Clone(r.Device)] = dev
		}
		dev.open, dev.refused = line, r.Refused
		return
	case history.KindDisconnect:
		if dev := p.devices[r.Device]; dev != nil {
			dev.open, dev.refused = 0, false
		}
		return
	case history.KindJoin:
		p.joins++
		k := member{o.chat(r.Chat), o.namedUser(r.User)}
		o.sendAuth.joined(k.chat)
		p.joined[k] = line
		delete(p.left, k)
		return
	case history.KindLeave:
		k := member{o.chat(r.Chat), o.userOf(r.User)}
		if p.joined[k] > 0 {
			p.left[k] = line
		}
		return
	case history.KindDeliveryAck:
		o.deliveryAck(r)
		return
	case history.KindPush:
	default:
		return
	}
	dev := p.devices[r.Device]
	if dev == nil {
		return
	}
	c := o.chat(r.Chat)
	dc := devChat{dev.id, c}
	top := p.received[dc]
	for _, s := range r.Seqs {
		top = max(top, s)
	}
	p.received[dc] = top
	o.authorized(r, dev, c)
	if o.found[IdenticalOrder] {
		return
	}
	for i, s := range r.Seqs {
		h := store.IDHashAt(r.IDHashes, r.MessageIDs, i)
		cs := chatSeq{c, s}
		if first, ok := o.pushes.bySeq[cs]; !ok {
			o.pushes.bySeq[cs] = pushSeen{id: h, seq: s, line: line}
		} else if first.id != h {
			o.violate(IdenticalOrder, []int{int(first.line), r.Line}, r.Time,
				"the pushes at lines %d and %d give chat %q seq %d two different message ids", first.line, r.Line, r.Chat, s)
			return
		}
		ci := chatID{c, h}
		if first, ok := o.pushes.byID[ci]; !ok {
			o.pushes.byID[ci] = pushSeen{id: h, seq: s, line: line}
		} else if first.seq != s {
			o.violate(IdenticalOrder, []int{int(first.line), r.Line}, r.Time,
				"the pushes at lines %d and %d give one message id of chat %q two sequences, %d and %d", first.line, r.Line, r.Chat, first.seq, s)
			return
		}
		if o.pushedAsSent(r, i, c, s, h) {
			return
		}
	}
}

// pushedAsSent judges a pushed message's content hash and sender, where
// the push line gives them, against what the persist that created it
// sent: the first ack at its sequence, of its message id, not a replay
// (the check after the run compares with the first such persist of the
// id: at its lowest sequence, the first acknowledged; they differ only
// when a service answered one id at two sequences, and a difference is
// not reported when the id is known at another sequence, idElsewhere).
// It reports whether it found a violation.
func (o *Checker) pushedAsSent(r *history.Receiver, i int, c int32, seq, id uint64) bool {
	var payload, sender uint64
	if i < len(r.PayloadHashes) {
		payload = store.StringHash(r.PayloadHashes[i])
	}
	if i < len(r.Senders) {
		sender = store.StringHash(r.Senders[i])
	}
	if payload == 0 && sender == 0 {
		return false
	}
	acked := &o.acked[c]
	first, ok := acked.get(seq)
	if !ok {
		o.claim(c, seq, contentClaim{id: id, said: store.Carried{Payload: payload, Sender: sender}, line: int32(r.Line), push: true})
		return false
	}
	if first.mid != id {
		return false
	}
	sent, ok := acked.sentOf(seq)
	if !ok {
		return false
	}
	why := store.Differs(store.Carried{Payload: payload, Sender: sender}, sent)
	if why == "" || o.idElsewhere(c, id, seq) {
		return false
	}
	o.violate(IdenticalOrder, []int{r.Line, int(first.line)}, r.Time,
		"the push at line %d gives chat %q seq %d %s than the persist acknowledged at line %d sent: a message is pushed as it was sent", r.Line, r.Chat, seq, why, first.line)
	return true
}

// authorized judges push_authorization's rules at a push, as the check
// after the run reads the lines: no streamed push on a connection whose
// identity was refused, and none to a user with no join line for the chat
// before it. The latter only once some join line was read: a history
// without any records no membership, and the check after the run does not
// judge it then.
func (o *Checker) authorized(r *history.Receiver, dev *device, c int32) {
	if o.found[PushAuthorization] || len(r.Seqs) == 0 { // nothing pushed
		return
	}
	switch {
	case !r.CatchUp && dev.refused:
		o.violate(PushAuthorization, []int{int(dev.open), r.Line}, r.Time,
			"the push at line %d went to device %q on a connection whose identity was refused (the connect at line %d)", r.Line, r.Device, dev.open)
	case o.pushes.joins > 0 && o.pushes.joined[member{c, dev.userID}] == 0:
		o.violate(PushAuthorization, []int{int(dev.first), r.Line}, r.Time,
			"the push at line %d gives chat %q to device %q, whose user %q had no join line for it before (its device connected at line %d)", r.Line, r.Chat, r.Device, dev.user, dev.first)
	case !r.CatchUp && dev.open > 0 && o.pushes.left[member{c, dev.userID}] > 0 && dev.open > o.pushes.left[member{c, dev.userID}]:
		left := o.pushes.left[member{c, dev.userID}]
		o.violate(PushAuthorization, []int{int(dev.open), r.Line}, r.Time,
			"the push at line %d gives chat %q to device %q on a connection opened at line %d, after its user %q left the chat (line %d)", r.Line, r.Chat, r.Device, dev.open, dev.user, left)
	}
}

// deliveryAck judges delivery_state_consistency's rule that operations so
// far prove, as the check after the run reads the lines: a delivery_ack
// may not run ahead of what its device was pushed of the chat before it
// (streamed or caught up, on any of its connections), nor of the
// header's initial_counter, below which every sequence is the chat's
// before the run. Only once the header was read (history.HeaderSink):
// without it the initial counter is unknown. What the rule reads of the
// final delivery_state table is left to the check after the run.
func (o *Checker) deliveryAck(r *history.Receiver) {
	p := &o.pushes
	dev := p.devices[r.Device]
	if dev == nil || !o.header || o.found[DeliveryStateConsistency] {
		return // a device that never connected: the reader refuses its line
	}
	c := o.chat(r.Chat)
	top := p.received[devChat{dev.id, c}]
	if r.Seq > max(top, o.initialCounter) {
		o.violate(DeliveryStateConsistency, []int{r.Line}, r.Time,
			"device %q acknowledged chat %q up to seq %d at line %d, but had been pushed only up to seq %d of it: an acknowledgement ran ahead of what the device received",
			r.Device, r.Chat, r.Seq, r.Line, top)
	}
}
