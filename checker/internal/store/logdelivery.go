package store

import (
	"github.com/chatseq/chatseq/history"
)

// The Log takes the receivers' lines into a Delivery (see
// checker/internal/store); the delivery invariants read it.

// Receiver takes one receiver line (history.ReceiverSink).
func (l *Log) Receiver(r *history.Receiver) {
	if l.Delivery == nil {
		l.Delivery = NewDelivery()
	}
	l.Delivery.Take(r)
}

// FinishDelivery takes what only the whole history tells: whether its
// final state was cut short (the delivery_state rows then prove nothing,
// as any final line) and whether it read the delivery_state table.
func (l *Log) FinishDelivery(h *history.History, cut bool) {
	d := l.Delivery
	if d == nil {
		if cut || !readsDeliveryState(h) {
			return
		}
		// The table read, even empty, is judged as it stands (FORMAT.md,
		// "The final delivery_state table"), with no receiver line.
		d = NewDelivery()
		l.Delivery = d
	}
	// The index lets go of the Log's chat names: map the delivery's
	// chats to the Log's numbers while they are there.
	d.LogChats = make([]int32, len(d.Chats))
	for c, name := range d.Chats {
		d.LogChats[c] = -1
		if id, ok := l.chatIDs[name]; ok {
			d.LogChats[c] = id
		}
	}
	d.Cut = cut
	if cut {
		d.Rows = nil
		return
	}
	for _, t := range h.TablesRead {
		if t.Table == history.TableDeliveryState {
			d.StateRead = t.Line
		}
	}
}

// readsDeliveryState says whether h has the delivery_state table's
// table_read line.
func readsDeliveryState(h *history.History) bool {
	for _, t := range h.TablesRead {
		if t.Table == history.TableDeliveryState {
			return true
		}
	}
	return false
}
