package history

import "github.com/chatseq/chatseq/history/internal/jsonscan"

// The receivers' line shapes and the rules between their lines
// (FORMAT.md, "Receivers").

var (
	receiverLine = fields(fieldType, fieldTime)

	connectShape       = newShape("connect", receiverLine|fields(fieldDevice, fieldUser), fields(fieldRefused, fieldError))
	disconnectShape    = newShape("disconnect", receiverLine|fields(fieldDevice), fields(fieldError))
	pushShape          = newShape("push", receiverLine|fields(fieldDevice, fieldChat, fieldSeqs, fieldMessageIDs), fields(fieldCatchUp, fieldPayloadHashes, fieldSenders))
	deliveryAckShape   = newShape("delivery_ack", receiverLine|fields(fieldDevice, fieldChat, fieldLastAcked), 0)
	joinShape          = newShape("join", receiverLine|fields(fieldChat, fieldUser), 0)
	leaveShape         = newShape("leave", receiverLine|fields(fieldChat, fieldUser), 0)
	settledShape       = newShape("settled", receiverLine|fields(fieldDevice), 0)
	stateReadShape     = newShape("state_read", receiverLine|fields(fieldChat, fieldUser), fields(fieldRefused))
	finalDeliveryState = newShape("final delivery_state", finalRow|fields(fieldUser, fieldLastAcked), 0)
)

func receiverShape(k Kind) *shape {
	switch k {
	case KindConnect:
		return connectShape
	case KindDisconnect:
		return disconnectShape
	case KindPush:
		return pushShape
	case KindDeliveryAck:
		return deliveryAckShape
	case KindJoin:
		return joinShape
	case KindLeave:
		return leaveShape
	case KindStateRead:
		return stateReadShape
	}
	return settledShape
}

// receiverRules is what the builder keeps to apply the rules between
// receiver lines: each device's user and open connection, and each chat's
// members.
type receiverRules struct {
	devices map[string]*deviceState
	members map[membership]int // the line of the join that made a member
}

type deviceState struct {
	user    string
	connect int // the line of its open connection; 0: none open
	closed  int // the line of its last disconnect
	settled int // the line of its settled line
}

type membership struct{ chat, user string }

// addReceiver checks a receiver line against the lines before it and
// hands it on. Receiver lines are operation lines: in time order with
// them, before every final line.
func (b *builder) addReceiver(l *parsedLine) error {
	if b.finalsFrom > 0 {
		return contentErr("%s line after the final lines (which began on line %d); final lines must come last", l.kind, b.finalsFrom)
	}
	if b.lastTimeLine > 0 && l.time < b.lastTime {
		return contentErr(`"time" %d is earlier than %d on line %d; lines must be in time order`, l.time, b.lastTime, b.lastTimeLine)
	}
	if b.recv == nil {
		b.recv = &receiverRules{devices: map[string]*deviceState{}, members: map[membership]int{}}
	}
	rr := b.recv
	// Only the fields the kind carries: another is ignored with a warning.
	r := Receiver{Line: l.lineNo, Kind: l.kind, Time: l.time}
	carried := l.shape.allowed
	if carried.has(fieldUser) && l.user == "" {
		// A sync or a send naming "" names no user (an optional string
		// is written only when not empty): "" as a member made an
		// answered sync by "" pass unjudged (a red team's).
		return contentErr(`"user" is empty: a user is a member or a device's identity, never ""`)
	}
	if carried.has(fieldDevice) {
		r.Device = l.device
	}
	if carried.has(fieldUser) {
		r.User = l.user
	}
	if carried.has(fieldChat) {
		r.Chat = l.chat
	}
	dev := rr.devices[l.device]
	switch l.kind {
	case KindConnect:
		if dev == nil {
			dev = &deviceState{user: l.user}
			rr.devices[l.device] = dev
		}
		if dev.user != l.user {
			return contentErr(`connect of device %s as user %s, but the device is user %q's; a device is one user's`, jsonscan.Quote(l.device), jsonscan.Quote(l.user), dev.user)
		}
		if dev.connect > 0 {
			return contentErr("connect of device %s while its connection of line %d is open; a device has one connection at a time", jsonscan.Quote(l.device), dev.connect)
		}
		dev.connect = l.lineNo
		r.Refused, r.Error = l.refused, l.errorCode
	case KindDisconnect:
		if dev == nil || dev.connect == 0 {
			return contentErr("disconnect of device %s, which has no open connection", jsonscan.Quote(l.device))
		}
		dev.connect, dev.closed = 0, l.lineNo
		r.Error = l.errorCode
	case KindPush:
		if dev == nil {
			return contentErr("push to device %s, which never connected; its connect line names its user first", jsonscan.Quote(l.device))
		}
		if !l.catchUp && dev.connect == 0 {
			return contentErr("push to device %s, which has no open connection (its last closed on line %d); only a catch-up push (\"catch_up\":true) comes without one", jsonscan.Quote(l.device), dev.closed)
		}
		if ids := len(l.messageIDs) + len(l.idHashes); len(l.seqs) != ids {
			return contentErr(`"seqs" has %d items but "message_ids" has %d; they must pair up`, len(l.seqs), ids)
		}
		if err := contentPairsUp(l); err != nil {
			return err
		}
		if err := idsNotEmpty(l); err != nil {
			return err
		}
		r.Seqs, r.MessageIDs, r.IDHashes, r.CatchUp = l.seqs, l.messageIDs, l.idHashes, l.catchUp
		r.PayloadHashes, r.Senders = l.payloadHashes, l.senders
	case KindDeliveryAck:
		if dev == nil {
			return contentErr("delivery_ack of device %s, which never connected; its connect line names its user first", jsonscan.Quote(l.device))
		}
		r.Seq = l.lastAcked
	case KindSettled:
		if dev == nil {
			return contentErr("settled line of device %s, which never connected", jsonscan.Quote(l.device))
		}
		if dev.settled > 0 {
			return contentErr("a second settled line of device %s (the first is on line %d); a device settles once", jsonscan.Quote(l.device), dev.settled)
		}
		dev.settled = l.lineNo
	case KindJoin:
		m := membership{l.chat, l.user}
		if at, ok := rr.members[m]; ok {
			return contentErr("join of user %s to chat %s, of which it is a member since line %d", jsonscan.Quote(l.user), jsonscan.Quote(l.chat), at)
		}
		rr.members[m] = l.lineNo
	case KindLeave:
		m := membership{l.chat, l.user}
		if _, ok := rr.members[m]; !ok {
			return contentErr("leave of user %s from chat %s, of which it is not a member", jsonscan.Quote(l.user), jsonscan.Quote(l.chat))
		}
		delete(rr.members, m)
	case KindStateRead:
		r.Refused = l.refused
	}
	b.lastTime, b.lastTimeLine = l.time, l.lineNo
	b.emitReceiver(&r)
	return nil
}

// emitReceiver hands r to a ReceiverSink, or keeps it in the History.
func (b *builder) emitReceiver(r *Receiver) {
	if rs, ok := b.sink.(ReceiverSink); ok {
		rs.Receiver(r)
		return
	}
	b.h.Receivers = append(b.h.Receivers, *r)
}
