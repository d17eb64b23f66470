package online

import (
	"github.com/chatseq/chatseq/checker/internal/store"
	"github.com/chatseq/chatseq/history"
)

// IdenticalOrder is ADR-001's "Per-Chat Total Order" as HISTORY.md names it.
const IdenticalOrder = "identical_order"

// pushes is what identical_order's online rules keep: per chat, the first
// message id pushed at each sequence, and the first sequence each id was
// pushed at (to any device), with the push line that showed it.
type pushes struct {
	devices map[string]bool // devices that connected: the check ignores pushes to others
	bySeq   map[chatSeq]pushSeen
	byID    map[chatID]pushSeen
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
	switch r.Kind {
	case history.KindConnect:
		if o.pushes.devices == nil {
			o.pushes = pushes{devices: map[string]bool{}, bySeq: map[chatSeq]pushSeen{}, byID: map[chatID]pushSeen{}}
		}
		if !o.pushes.devices[r.Device] {
			o.pushes.devices[string([]byte(r.Device))] = true
		}
		return
	case history.KindPush:
	default:
		return
	}
	if o.found[IdenticalOrder] || !o.pushes.devices[r.Device] {
		return
	}
	c := o.chat(r.Chat)
	line := int32(r.Line)
	for i, s := range r.Seqs {
		var h uint64
		switch {
		case i < len(r.IDHashes):
			h = r.IDHashes[i]
		case i < len(r.MessageIDs):
			h = store.StringHash(r.MessageIDs[i])
		}
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
	}
}
