package checker

// deliveryStats are x's delivery statistics, nil without receiver lines.
func (x *index) deliveryStats() *DeliveryStats {
	d := x.Delivery
	if d == nil {
		return nil
	}
	view := d.SortedView()
	s := &DeliveryStats{Devices: len(d.Devs), PushLines: d.PushLines, Pushed: d.Pushes.Len(),
		Duplicates: view.Duplicates, OutOfOrder: view.OutOfOrder, Acks: len(d.Acks), AfterLeave: d.AfterLeave}
	for i := range d.Devs {
		if d.Devs[i].Settled > 0 {
			s.Settled++
		}
	}
	return s
}
