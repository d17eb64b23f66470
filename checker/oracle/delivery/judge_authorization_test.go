package delivery

// pushAuthorization, FORMAT.md: "nothing is pushed to a user with no join
// of the chat before the push, nor streamed on a connection whose
// identity was refused (a catch-up page is fetched apart, not on the
// connection); a push after the user's leave may have been in flight
// (counted, not failed), unless it was streamed on a connection opened
// after the leave with no join again since, or (streamed or caught up)
// it carries a message first sent (the first persist of the key of a
// persist acknowledged with its sequence and id, invoked) a second or
// more after the leave (by the lines' time), with no join again since:
// that message was not in flight when the user left, and a push channel
// has a second to see a membership change. A history with no join line
// records no membership: only refused connections are judged".
//
// Readings (each rule below quotes the words it implements):
//   - "with no join of the chat before the push": the device's user has no
//     join line of the push's chat before the push line (file order),
//     streamed or catch-up.
//   - "A history with no join line records no membership: only refused
//     connections are judged": with no join line anywhere in the file the
//     membership rules (no join before the push; streamed after a leave on
//     a later connection) are not applied, and only the refused-connection
//     rule is. (The previous version failed such a history's every push,
//     from the join table's "a member from the start has a join line"; the
//     text now says such a history records no membership.)
//   - "nor streamed on a connection whose identity was refused (a catch-up
//     page is fetched apart, not on the connection)": a push line without
//     "catch_up": true between a refused connect of its device and the
//     next disconnect fails. A catch-up page there is no push on that
//     connection: it is judged by the membership rules alone. (The
//     previous version failed a catch-up page there too, from "its lines
//     between a connect and the next disconnect are that connection's";
//     the text now sets catch-up pages apart.)
//   - "a push after the user's leave may have been in flight ... unless it
//     was streamed on a connection opened after the leave with no join
//     again since": when the user's last join or leave line of the chat
//     before the push is a leave, the push fails only when it is streamed
//     (no "catch_up": true) and its connection's connect line comes after
//     that leave (there is no join between the leave and the push, as the
//     leave is the last). Otherwise it is counted, not failed.
//   - "or (streamed or caught up) it carries a message first sent (the
//     first persist of the key of a persist acknowledged with its sequence
//     and id, invoked) a second or more after the leave (by the lines'
//     time), with no join again since": for a push after that last leave,
//     each (seq, message_id) it carries is looked up among the ok persist
//     lines of the chat with that sequence and id; for each such ack, the
//     first invoke line of its key in the chat is found, and the earliest
//     of those is the message's first send ("first sent": no attempt at
//     it began before); if its time is at least a second (1e9) past the
//     leave line's time, the push fails. A message no ok persist line
//     carries is not judged.
//   - Applicability: n/a without a push line. With no join line, the
//     evidence is a refused connection: without a refused connect line
//     too it is n/a (the history holds nothing a push is judged against),
//     with one it passes or fails.
func (f *facts) pushAuthorization() verdict {
	members := false // the history records membership: it has a join line
	refusals := false
	for _, l := range f.lines {
		members = members || l.Type == tJoin
		refusals = refusals || (l.Type == tConnect && l.Refused)
	}
	n, inFlight := 0, 0
	for i, l := range f.lines {
		if l.Type != tPush {
			continue
		}
		n++
		user := f.userOf(l.Device)
		c := f.connAt(l.Device, i)
		if !l.CatchUp && c >= 0 && f.conns[c].refused {
			return failed("push on line %d streamed to device %s on the connection refused on line %d",
				fileLine(i), l.Device, fileLine(f.conns[c].open))
		}
		if !members {
			continue
		}
		if !f.joinedBefore(l.Chat, user, i) {
			return failed("push on line %d of chat %s to device %s of user %s, who has no join of the chat before it",
				fileLine(i), l.Chat, l.Device, user)
		}
		if f.memberAt(l.Chat, user, i) {
			continue
		}
		leave := f.lastLeaveBefore(l.Chat, user, i)
		if !l.CatchUp && c >= 0 && f.conns[c].open > leave {
			return failed("push on line %d of chat %s streamed to device %s on the connection opened on line %d, after user %s left the chat on line %d with no join since",
				fileLine(i), l.Chat, l.Device, fileLine(f.conns[c].open), user, fileLine(leave))
		}
		if late, ok := f.sentAfter(l, leave); ok {
			return failed("push on line %d of chat %s to device %s carries (%d, %q), first sent on line %d, a second or more after user %s left the chat on line %d with no join since",
				fileLine(i), l.Chat, l.Device, late.seq, late.id, fileLine(late.first), user, fileLine(leave))
		}
		inFlight++
	}
	if n == 0 {
		return notApplicable("no push line")
	}
	if !members {
		if !refusals {
			return notApplicable("no join line and no refused connection: the history records no membership")
		}
		return passed("%d push lines, none streamed on a refused connection; no join line, so membership is not judged", n)
	}
	return passed("%d push lines, each to a user who had joined and none streamed on a refused connection; %d after a leave, in flight", n, inFlight)
}

// lastLeaveBefore is the index of the last leave line of (chat, user)
// before line index i (-1 if none).
func (f *facts) lastLeaveBefore(chat, user string, i int) int {
	at := -1
	for k := 0; k < i && k < len(f.lines); k++ {
		if l := f.lines[k]; l.Type == tLeave && l.Chat == chat && l.User == user {
			at = k
		}
	}
	return at
}

// lateMessage is a pushed message first sent after a leave.
type lateMessage struct {
	seq   uint64
	id    string
	first int
}

// sentAfter finds a message push line l carries whose first send (the
// earliest first invoke over the keys of the ok persist lines of its
// chat carrying its sequence and id) is at least a second after the leave
// line at index leave.
func (f *facts) sentAfter(l line, leave int) (lateMessage, bool) {
	for k, seq := range l.Seqs {
		if k >= len(l.MessageIDs) {
			break
		}
		earliest := -1
		for _, a := range f.acks {
			if a.chat != l.Chat || a.seq != seq || a.id != l.MessageIDs[k] {
				continue
			}
			if first := f.firstSent(a.chat, a.key); first < len(f.lines) && (earliest < 0 || f.lines[first].Time < f.lines[earliest].Time) {
				earliest = first
			}
		}
		if earliest >= 0 && f.lines[earliest].Time-f.lines[leave].Time >= second {
			return lateMessage{seq, l.MessageIDs[k], earliest}, true
		}
	}
	return lateMessage{}, false
}
