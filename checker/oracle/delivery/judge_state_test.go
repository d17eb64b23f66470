package delivery

// deliveryStateConsistency, FORMAT.md (ADR-001 Appendix C): "no
// delivery_ack runs ahead of what its device received (above the highest
// sequence of the chat pushed to the device before it and
// initial_counter), and each final delivery_state row is what the user's
// devices acknowledged: never above their highest acknowledgement (nor
// initial_counter), and never below an acknowledgement sent on a
// connection still open at its device's settled line (a missing row in a
// table read is 0); a (chat, user) never has two rows. An acknowledgement
// on a connection that dropped, or whose device never settled, may have
// been lost in flight and is no lower bound. A row judged (one the table
// holds, or in a table read any (chat, user)) of a (chat, user) that
// acknowledged, none of whose acknowledgements is a lower bound, is not
// judged from below: the invariant is then at best unknown".
//
// Readings (each rule below quotes the words it implements):
//   - "runs ahead ... above the highest sequence of the chat pushed to the
//     device before it and initial_counter": an ack of N fails when N is
//     above both, i.e. above the larger; pushes are streamed or catch-up,
//     on any connection of the device, before the ack line (file order).
//   - "never above their highest acknowledgement (nor initial_counter)": a
//     row may not exceed the larger of initial_counter and the highest
//     last_acked_sequence of the chat any device of the user acknowledged,
//     on any connection, lost or not (0 when none).
//   - "never below an acknowledgement sent on a connection still open at
//     its device's settled line": the lower bound is the highest ack of
//     the chat by a device of the user that has a settled line, sent on
//     that device's connection which is open at the settled line (its
//     connect before it, its disconnect, if any, after it). An ack sent
//     with no connection open, on an earlier connection, or by a device
//     that never settled is no lower bound. A refused connection is not
//     set apart (the text does not); generated histories have none open at
//     a settle.
//   - "(a missing row in a table read is 0)": with a table_read line for
//     delivery_state, a (chat, user) without a row is judged as a row of 0
//     against the same lower bound: it fails when such an ack is above 0,
//     whatever initial_counter is (the bound is the ack, not the counter;
//     an ack of 0 needs no row). A table present without a table_read line
//     says nothing of the (chat, user)s it has no row for: only its rows
//     are judged.
//   - "a (chat, user) never has two rows": two final delivery_state lines
//     of one (chat, user) fail, equal or not, with or without an ack, in a
//     table read or present. (The previous version required one row only
//     of a (chat, user) with an ack open at a settle, as the earlier text
//     scoped "exactly one row" to those; the text now says "never".)
//   - "A row judged (one the table holds, or in a table read any (chat,
//     user)) of a (chat, user) that acknowledged, none of whose
//     acknowledgements is a lower bound ... at best unknown": after every
//     rule that fails, a (chat, user) with a delivery_ack line of a device
//     of the user, and no settledBound, makes the verdict unknown when it
//     has a row in the table or the table was read; "at best" lets a
//     failure stand.
//   - Applicability: judged when the history has a delivery_ack or the
//     delivery_state table is read or present; a table read and empty is
//     evidence ("The table is judged as it stands, empty included", the
//     table_read section), so then it passes or fails, never n/a.
func (f *facts) deliveryStateConsistency() verdict {
	checked := 0
	for i, l := range f.lines {
		if l.Type != tAck {
			continue
		}
		checked++
		n := val(l.LastAcked)
		if got := f.highestPushed(l.Device, l.Chat, i); n > max(got, f.initial) {
			return failed("delivery_ack on line %d acknowledges %d of chat %s, but device %s had been pushed at most %d (initial_counter %d)",
				fileLine(i), n, l.Chat, l.Device, got, f.initial)
		}
	}
	if !f.tableKnown(tableDeliveryState) {
		if checked == 0 {
			return notApplicable("no delivery_ack and no delivery_state table")
		}
		return passed("%d delivery acks, none ahead of its device; no delivery_state table", checked)
	}
	rows := f.finals(tableDeliveryState)
	read := f.tableRead(tableDeliveryState)
	for k, r := range rows {
		checked++
		for _, o := range rows[:k] {
			if o.Chat == r.Chat && o.User == r.User {
				return failed("delivery_state table holds two rows for (chat %s, user %s), %d and %d: a (chat, user) never has two",
					r.Chat, r.User, val(o.LastAcked), val(r.LastAcked))
			}
		}
		hi := f.acknowledged(r.Chat, r.User)
		lo, loAt := f.settledBound(r.Chat, r.User)
		got := val(r.LastAcked)
		if got > max(hi, f.initial) {
			return failed("delivery_state row (chat %s, user %s) holds %d, above the user's devices' highest acknowledgement %d and initial_counter %d",
				r.Chat, r.User, got, hi, f.initial)
		}
		if loAt >= 0 && got < lo {
			return failed("delivery_state row (chat %s, user %s) holds %d, below the acknowledgement of %d on line %d, sent on a connection still open at its device's settled line",
				r.Chat, r.User, got, lo, fileLine(loAt))
		}
	}
	var unbounded *verdict // kept until every failing rule has had its say
	for _, chat := range f.chats() {
		for _, user := range f.users() {
			if _, loAt := f.settledBound(chat, user); loAt >= 0 || !f.ackedAny(chat, user) || unbounded != nil {
				continue
			}
			hasRow := false
			for _, r := range rows {
				hasRow = hasRow || (r.Chat == chat && r.User == user)
			}
			if read || hasRow {
				v := undecided("user %s acknowledged chat %s, never on a connection still open at its device's settled line: its row is not judged from below", user, chat)
				unbounded = &v
			}
		}
	}
	if read {
		for _, chat := range f.chats() {
			for _, user := range f.users() {
				lo, loAt := f.settledBound(chat, user)
				if loAt < 0 || lo == 0 {
					continue
				}
				found := false
				for _, r := range rows {
					found = found || (r.Chat == chat && r.User == user)
				}
				if !found {
					return failed("user %s acknowledged %d of chat %s on line %d, on a connection still open at its device's settle, but the delivery_state table read has no row for them (0)",
						user, lo, chat, fileLine(loAt))
				}
			}
		}
	}
	if unbounded != nil {
		return *unbounded
	}
	return passed("%d delivery acks and rows checked", checked)
}

// ackedAny says whether a device of user sent a delivery_ack of chat.
func (f *facts) ackedAny(chat, user string) bool {
	for _, l := range f.lines {
		if l.Type == tAck && l.Chat == chat && f.userOf(l.Device) == user {
			return true
		}
	}
	return false
}

// highestPushed is the highest sequence of chat pushed to device before
// line index before (0 if none).
func (f *facts) highestPushed(device, chat string, before int) uint64 {
	var hi uint64
	for _, e := range f.pushes() {
		if e.at < before && e.device == device && e.chat == chat && e.seq > hi {
			hi = e.seq
		}
	}
	return hi
}

// acknowledged is the highest sequence of chat any device of user
// acknowledged (0 if none).
func (f *facts) acknowledged(chat, user string) uint64 {
	var hi uint64
	for _, l := range f.lines {
		if l.Type == tAck && l.Chat == chat && f.userOf(l.Device) == user && val(l.LastAcked) > hi {
			hi = val(l.LastAcked)
		}
	}
	return hi
}

// settledBound is the highest acknowledgement of chat by a device of user
// sent on a connection still open at that device's settled line, and the
// index of its line (-1 when there is no such acknowledgement).
func (f *facts) settledBound(chat, user string) (uint64, int) {
	var hi uint64
	at := -1
	for i, l := range f.lines {
		if l.Type != tAck || l.Chat != chat || f.userOf(l.Device) != user {
			continue
		}
		s := f.settledAt(l.Device)
		if s < 0 {
			continue // the device never settled
		}
		c := f.connAt(l.Device, i)
		if c < 0 || c != f.connAt(l.Device, s) {
			continue // no connection, or one that closed before the settle
		}
		if at < 0 || val(l.LastAcked) > hi {
			hi, at = val(l.LastAcked), i
		}
	}
	return hi, at
}

// users lists every user any line names, in order of first appearance.
func (f *facts) users() []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range f.lines {
		if l.User != "" && !seen[l.User] {
			seen[l.User] = true
			out = append(out, l.User)
		}
	}
	return out
}
