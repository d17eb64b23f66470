package store

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
	if x.Delivery == nil || x.Delivery.Lines == 0 {
		return "no receiver lines (connect, push, delivery_ack, join, settled: history FORMAT.md, \"Receivers\"; bench --receivers N records them)"
	}
	return ""
}
