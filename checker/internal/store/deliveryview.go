package store

import "github.com/chatseq/chatseq/checker/internal/render"

// LogChat is the Log's number of a delivery chat, -1 when no operation
// or final line of the history names it.
func (x *Index) LogChat(d *Delivery, c int32) int32 {
	if int(c) >= len(d.LogChats) {
		return -1 // finishDelivery did not run: an index built apart
	}
	return d.LogChats[c]
}

// ReceiversAbsent says why a history holds no receiver line, or "".
func (x *Index) ReceiversAbsent() string {
	switch d := x.Delivery; {
	case d.Devices():
		return ""
	case d != nil && len(d.Members) > 0:
		return "no receiver lines but the chats' membership (connect, push, delivery_ack, settled: history FORMAT.md, \"Receivers\"; bench --receivers N records them)"
	}
	return "no receiver lines (connect, push, delivery_ack, join, settled: history FORMAT.md, \"Receivers\"; bench --receivers N records them)"
}

// DeliveryStats are x's delivery statistics, nil without receiver lines
// (a delivery_state table read alone has none).
func (x *Index) DeliveryStats() *render.DeliveryStats {
	d := x.Delivery
	if !d.Devices() {
		return nil
	}
	view := d.SortedView()
	s := &render.DeliveryStats{Devices: len(d.Devs), PushLines: d.PushLines, Pushed: d.Pushes.Len(),
		Duplicates: view.Duplicates, OutOfOrder: view.OutOfOrder, Acks: len(d.Acks), AfterLeave: d.AfterLeave}
	for i := range d.Devs {
		if d.Devs[i].Settled > 0 {
			s.Settled++
		}
	}
	return s
}
