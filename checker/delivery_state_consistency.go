package checker

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/chatseq/chatseq/checker/internal/store"
)

// NameDeliveryStateConsistency is ADR-001 Appendix C's
// delivery_state_consistency, with what §5 says of acknowledgements.
const NameDeliveryStateConsistency = "delivery_state_consistency"

// checkDeliveryStateConsistency:
//   - no delivery_ack runs ahead of what its device received: its
//     last_acked_sequence is at most the highest sequence of the chat
//     pushed to the device before it (or initial_counter);
//   - each final delivery_state row (chat, user) is what the user's
//     devices acknowledged: never above their highest acknowledgement of
//     the chat (nor initial_counter), so never above what was received;
//     and never below an acknowledgement a device sent on a connection
//     still open at its settled line (the server kept the highest: an
//     acknowledgement never lowers it, ADR-001 §5);
//   - in a delivery_state table read, a (chat, user) with such an
//     acknowledgement has its row, and has one row only.
//
// The counterexample is the acknowledgement (and the settled line) and
// the row.
func checkDeliveryStateConsistency(x *index) Result {
	v := newVerdict(NameDeliveryStateConsistency)
	if why := x.ReceiversAbsent(); why != "" && (x.Delivery == nil || x.Delivery.StateRead == 0) {
		v.notApplicable("%s", why)
		return v.result()
	}
	d := x.Delivery
	tablePresent := d.StateRead > 0 || len(d.Rows) > 0
	if len(d.Acks) == 0 && !tablePresent {
		v.notApplicable("no delivery_ack line and no final delivery_state table")
		return v.result()
	}
	ahead := 0
	for i := range d.Acks {
		a := &d.Acks[i]
		if a.Seq > max(a.MaxRecv, x.InitialCounter) {
			ahead++
			dev := &d.Devs[a.Dev]
			v.fail([]int{int(a.Line)}, "device %q acknowledged chat %q up to seq %d at line %d, but had been pushed only up to seq %d of it: an acknowledgement ran ahead of what the device received",
				dev.Name, d.Chats[a.Chat], a.Seq, a.Line, a.MaxRecv)
		}
	}
	rowsJudged := 0
	if tablePresent {
		rowsJudged = judgeRows(d, x, v)
	} else {
		v.note("no final delivery_state table: only the acknowledgements are judged")
	}
	if d.Cut {
		v.note("the final state was cut short: its delivery_state rows are not judged")
	}
	v.pass("%s never ran ahead of what their device received; %s agree with the acknowledgements",
		plural(len(d.Acks), "delivery acknowledgement"), plural(rowsJudged, "delivery_state row"))
	return v.result()
}

// judgeRows judges the delivery_state rows against the acknowledgements
// and returns how many rows it judged.
func judgeRows(d *store.Delivery, x *index, v *verdict) int {
	bounds := d.AckBoundsByMember()
	rows := map[store.MemberKey]int32{}
	for _, r := range d.Rows {
		if first, ok := rows[r.MemberKey]; ok {
			v.fail([]int{int(first), int(r.Line)}, "chat %q has two delivery_state rows for user %q (lines %d and %d); a (user, chat) has one", d.Chats[r.Chat], d.Users[r.User], first, r.Line)
			continue
		}
		rows[r.MemberKey] = r.Line
		b := bounds[r.MemberKey]
		if b == nil {
			b = &store.AckBounds{}
		}
		switch {
		case r.Seq > max(b.Top, x.InitialCounter):
			acked := "no device of the user acknowledged the chat"
			if b.HasTop {
				acked = fmt.Sprintf("its devices acknowledged at most seq %d (line %d)", b.Top, b.TopLine)
			}
			v.fail([]int{int(r.Line), int(b.TopLine)}, "the delivery_state row at line %d gives user %q seq %d of chat %q, but %s: the server recorded an acknowledgement no device sent",
				r.Line, d.Users[r.User], r.Seq, d.Chats[r.Chat], acked)
		case b.HasKept && r.Seq < b.Kept:
			v.fail([]int{int(b.KeptLine), int(b.KeptSettled), int(r.Line)}, "the delivery_state row at line %d gives user %q seq %d of chat %q, below the seq %d a device acknowledged at line %d on a connection open until it settled (line %d): an acknowledgement was lost or lowered the state",
				r.Line, d.Users[r.User], r.Seq, d.Chats[r.Chat], b.Kept, b.KeptLine, b.KeptSettled)
		}
	}
	judgedFromBelow(d, bounds, rows, v)
	if d.StateRead > 0 {
		keys := make([]store.MemberKey, 0, len(bounds))
		for k := range bounds {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b store.MemberKey) int {
			return cmp.Or(cmp.Compare(a.Chat, b.Chat), cmp.Compare(a.User, b.User))
		})
		for _, k := range keys {
			b := bounds[k]
			if _, ok := rows[k]; ok || !b.HasKept || b.Kept == 0 { // a missing row is 0
				continue
			}
			v.fail([]int{int(b.KeptLine), int(b.KeptSettled), d.StateRead}, "the delivery_state table read (line %d) has no row for user %q of chat %q, whose device acknowledged seq %d at line %d on a connection open until it settled (line %d)",
				d.StateRead, d.Users[k.User], d.Chats[k.Chat], b.Kept, b.KeptLine, b.KeptSettled)
		}
	}
	return len(d.Rows)
}

// judgedFromBelow leaves the verdict unknown where a row it judges has
// acknowledgements and none of them bounds it from below: each was sent on
// a connection that ended before its device's settled line, or by a
// device that never settled. A service that closes the connection on
// every acknowledgement (a refusal) leaves every row so, and its rows
// would otherwise pass unjudged: bench's devices leave an
// acknowledgement of every chat on their last connection, held open for a
// moment before the settled line, so a correct service always has one.
// The rows judged are those the table holds and, in a table read, every
// (chat, user) (a missing row is 0).
func judgedFromBelow(d *store.Delivery, bounds map[store.MemberKey]*store.AckBounds, rows map[store.MemberKey]int32, v *verdict) {
	var first store.MemberKey
	unbounded := 0
	for k, b := range bounds {
		if _, inTable := rows[k]; b.HasKept || !b.HasTop || (!inTable && d.StateRead == 0) {
			continue
		}
		if unbounded == 0 || cmp.Or(cmp.Compare(k.Chat, first.Chat), cmp.Compare(k.User, first.User)) < 0 {
			first = k
		}
		unbounded++
	}
	if unbounded == 0 {
		return
	}
	b := bounds[first]
	v.unknown("%s acknowledged but none of their acknowledgements was sent on a connection still open at its device's settled line, so their delivery_state rows are not judged from below (an acknowledgement on a connection that dropped may have been lost in flight); first: user %q of chat %q, highest acknowledgement seq %d at line %d. A service that closes the connection on a delivery acknowledgement does this",
		plural(unbounded, "(chat, user)"), d.Users[first.User], d.Chats[first.Chat], b.Top, b.TopLine)
}
