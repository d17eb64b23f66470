package delivery

import (
	"slices"
	"sort"
)

// streamContinuity, FORMAT.md: "on one connection (a connect to its
// disconnect), for each chat, the messages the stream pushed (without
// "catch_up": true), in push order, are a contiguous run of the chat's
// events in the topic's order (offset; copies of a message included),
// from where the connection joined the stream; where the chat's events
// lie in several partitions, this holds of each partition apart (the
// messages streamed that the partition holds, in push order, against its
// events): a gateway reads the partitions side by side, and interleaves
// them as they come ... A message
// streamed after the run's last, found later in the topic with events
// between, is a skip; one found only earlier (the stream went back) is
// not, and the run is aligned anew from it. A hole across which the user
// joined or left the chat is not judged (what was published while the
// user was no member is not owed): the run is aligned anew after it. A
// refused connection's pushes are push_authorization's, not judged here."
//
// Readings (each rule below quotes the words it implements):
//   - "(with the final events table)": judged only with the events table
//     read or present.
//   - "this holds of each partition apart": the chat's events are split
//     by partition, each part in offset order; for each part, the run is
//     the connection's streamed messages of the chat that the part holds
//     (a message with copies in two partitions is in both runs), in push
//     order, and every rule below is applied to that run against that
//     part alone.
//   - A streamed message is found in the topic by its (seq, message_id).
//     One the topic does not hold at all cannot be placed and is passed
//     over (event_completeness and identical_order are about such
//     messages); the run goes on from the last message placed.
//   - "copies of a message included": a pushed message does not say which
//     of its copies it is, so the rule is applied to every way of placing
//     it, and a skip is reported only when every placement is one. For one
//     placement p of the run's last message, the next message continues
//     the run when the topic holds it at p+1; otherwise it is a skip when
//     the topic holds it anywhere after p+1 ("found later in the topic
//     with events between"), and when it has no copy after p ("found only
//     earlier", the stream went back) the run restarts at any of its
//     copies at or before p. Without copies this is exactly the text's
//     rule.
//   - "A hole across which the user joined or left the chat is not
//     judged ... the run is aligned anew after it": when a join or leave
//     line of the chat by the connection's user lies between the push line
//     of the run's last placed message and the push line of the next one,
//     the next one is not judged against the run, which restarts at any of
//     its copies. This holds whether or not the next message would have
//     continued the run: "aligned anew" forgets where the run was, so a
//     message contiguous across the join or leave is aligned at any of its
//     copies too, not only at the one after the run's last. A message the
//     topic does not hold, pushed in between, neither ends the hole nor
//     places the run: the hole runs from the last placed message to the
//     next placed one.
//   - "A refused connection's pushes are push_authorization's, not judged
//     here": a connection whose connect says "refused": true is passed
//     over, and its pushes do not count as streamed for applicability (a
//     history whose only streamed pushes are on refused connections is
//     n/a).
func (f *facts) streamContinuity() verdict {
	if !f.tableKnown(tableEvents) {
		return notApplicable("no final events table")
	}
	topics := map[string][][]msgID{}
	streamed, realigned := 0, 0
	for _, c := range f.conns {
		if c.refused {
			continue
		}
		for _, chat := range f.chats() {
			run := f.streamed(c, chat, len(f.lines))
			if len(run) == 0 {
				continue
			}
			streamed += len(run)
			parts, ok := topics[chat]
			if !ok {
				parts = f.topicParts(chat)
				topics[chat] = parts
			}
			for _, topic := range parts {
				if v, bad := f.contiguous(c, chat, inPart(run, topic), topic, &realigned); bad {
					return v
				}
			}
		}
	}
	if streamed == 0 {
		return notApplicable("no message was streamed on an accepted connection (every push was a catch-up or on a refused connection)")
	}
	return passed("%d streamed messages, each connection's run contiguous in the topic (%d runs aligned anew after a join or leave)", streamed, realigned)
}

// contiguous applies the run rules to run, a connection's streamed
// messages of chat, against topic, one partition's events in offset order.
func (f *facts) contiguous(c conn, chat string, run []entry, topic []msgID, realigned *int) (verdict, bool) {
	var at map[int]bool // possible topic positions of the run's last message
	lastAt := -1        // the push line of the run's last placed message
	for _, e := range run {
		var copies []int
		for p, m := range topic {
			if m == (msgID{e.seq, e.id}) {
				copies = append(copies, p)
			}
		}
		if len(copies) == 0 {
			continue
		}
		if at == nil || f.membershipChanged(chat, c.user, lastAt, e.at) {
			if at != nil {
				*realigned++
			}
			at = map[int]bool{}
			for _, q := range copies {
				at[q] = true // joined the stream at one of its copies
			}
			lastAt = e.at
			continue
		}
		next := map[int]bool{}
		for p := range at {
			switch {
			case contains(copies, p+1):
				next[p+1] = true
			case copies[len(copies)-1] > p+1:
				// found later with events between: a skip from p
			default:
				for _, q := range copies {
					if q <= p {
						next[q] = true // went back: aligned anew
					}
				}
			}
		}
		if len(next) == 0 {
			return failed("connection of device %s opened on line %d streamed (%d, %q) of chat %s on line %d, skipping events of the topic after the run's last message",
				c.device, fileLine(c.open), e.seq, e.id, chat, fileLine(e.at)), true
		}
		at, lastAt = next, e.at
	}
	return verdict{}, false
}

// inPart is the messages of run that topic holds, in run's order.
func inPart(run []entry, topic []msgID) []entry {
	var out []entry
	for _, e := range run {
		if slices.Contains(topic, msgID{e.seq, e.id}) {
			out = append(out, e)
		}
	}
	return out
}

// membershipChanged says whether a join or leave line of (chat, user) lies
// strictly between line indexes a and b.
func (f *facts) membershipChanged(chat, user string, a, b int) bool {
	for k := a + 1; k < b && k < len(f.lines); k++ {
		if l := f.lines[k]; (l.Type == tJoin || l.Type == tLeave) && l.Chat == chat && l.User == user {
			return true
		}
	}
	return false
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// topic is a chat's events in the topic's order: by partition, then offset.
// topicParts is chat's events a partition at a time, each in offset
// order, the partitions in order.
func (f *facts) topicParts(chat string) [][]msgID {
	byPart := map[uint64][][2]uint64{} // offset, index into the events lines
	var evs []msgID
	for _, l := range f.finals(tableEvents) {
		if l.Chat == chat {
			p := val(l.Partition)
			byPart[p] = append(byPart[p], [2]uint64{val(l.Offset), uint64(len(evs))})
			evs = append(evs, msgID{val(l.Seq), l.MessageID})
		}
	}
	parts := make([]uint64, 0, len(byPart))
	for p := range byPart {
		parts = append(parts, p)
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i] < parts[j] })
	out := make([][]msgID, 0, len(parts))
	for _, p := range parts {
		offs := byPart[p]
		sort.SliceStable(offs, func(i, j int) bool { return offs[i][0] < offs[j][0] })
		part := make([]msgID, len(offs))
		for i, o := range offs {
			part[i] = evs[o[1]]
		}
		out = append(out, part)
	}
	return out
}

// streamed lists the messages of chat streamed on connection c before line
// index before, in push order.
func (f *facts) streamed(c conn, chat string, before int) []entry {
	var out []entry
	for _, e := range f.pushes() {
		if !e.catchUp && e.device == c.device && e.chat == chat && c.open < e.at && e.at < c.close && e.at < before {
			out = append(out, e)
		}
	}
	return out
}

// streamCompleteness, FORMAT.md: "on a device's connection that stayed open
// to its settled line, for each chat it streamed (a push without
// "catch_up": true) while its user was a member from before the connect
// to past the settled line: every acknowledged message of the chat whose
// key was first sent (its first persist's invoke) after that connection's
// first streamed push of the chat, and acknowledged before the settled
// line, was streamed on the connection before that line. ... Besides,
// every such connection, whether it streamed the chat or not, owes every
// message first sent at least a second (by the lines' time) after its
// connect and acknowledged at least a second before its settled line".
//
// Readings (each rule below quotes the words it implements):
//   - "a connection that stayed open to its settled line": the device's
//     connection open at its settled line.
//   - "while its user was a member from before the connect to past the
//     settled line": a member just before the connect line and no leave up
//     to and including the settled line.
//   - "the chats it streamed" are those with a streamed push on the
//     connection before the settled line; its first such push is the start.
//   - "after"/"before" are file order (time order, ties as written).
//   - A message is its (seq, message_id) as a persist ok acknowledged it,
//     and "streamed" means a streamed push on the connection carried that
//     pair. Keys are compared within their chat (key_scope chat, the
//     default). A refused connection is not set apart: the text's
//     exclusion of refused connections is stream_continuity's alone.
//   - "whose key was first sent (its first persist's invoke)": a message at
//     or below initial_counter predates the run, and a persist answered
//     with it is a replay of "keys from before the run" (Header), so its
//     key's first persist was before the run, before any connection of
//     the history: it is never owed, by either clause. (The first version
//     took the history's first invoke of such a key as its first send.)
//   - "that streamed nothing of the chat": no streamed push of the chat on
//     the connection before the settled line. "A second" is 1e9 of the
//     lines' nanoseconds, "at least" is inclusive, and "acknowledged" is
//     the message's first ok line.
//   - The contract's stream_start: "at-connect" makes the first of those
//     seconds none ("any time after its connect": a later line);
//     absent or "within-1s" it is a second; any other value makes the
//     invariant unknown.
func (f *facts) streamCompleteness(hdr header) verdict {
	allowance := int64(second)
	switch v, stated := hdr.Contract["stream_start"]; {
	case !stated || v == "within-1s":
	case v == "at-connect":
		allowance = 0
	default:
		return undecided("contract stream_start %q is not a value the table defines", v)
	}
	judged := 0
	for _, dev := range f.devices() {
		settled := f.settledAt(dev)
		if settled < 0 {
			continue
		}
		ci := f.connAt(dev, settled)
		if ci < 0 {
			continue // no connection open at the settle
		}
		c := f.conns[ci]
		for _, chat := range f.chats() {
			run := f.streamed(c, chat, settled)
			if !f.memberThroughout(chat, c.user, c.open, settled+1) {
				continue
			}
			if len(run) == 0 {
				n, v := f.owedUnstreamed(dev, c, chat, settled, allowance)
				judged += n
				if v != nil {
					return *v
				}
				continue
			}
			start := run[0].at
			connectT, settledT := f.lines[c.open].Time, f.lines[settled].Time
			done := map[msgID]bool{}
			for _, a := range f.acks {
				m := msgID{a.seq, a.id}
				if a.chat != chat || a.at >= settled || done[m] || a.seq <= f.initial {
					continue
				}
				done[m] = true // its first acknowledgement decides
				first := f.firstSent(chat, a.key)
				afterStart := first > start
				inGrace := first < len(f.lines) && first > c.open && f.lines[first].Time-connectT >= allowance && settledT-f.lines[a.at].Time >= second
				if !afterStart && !inGrace {
					continue
				}
				judged++
				got := false
				for _, e := range run {
					got = got || (e.seq == m.seq && e.id == m.id)
				}
				if !got {
					return failed("message (%d, %q) of chat %s, first sent on line %d after the connection of device %s opened on line %d streamed the chat (line %d), or a second after its connect, was acknowledged on line %d but not streamed on it before its settle on line %d",
						m.seq, m.id, chat, fileLine(f.firstSent(chat, a.key)), dev, fileLine(c.open), fileLine(start), fileLine(a.at), fileLine(settled))
				}
			}
		}
	}
	if judged == 0 {
		return notApplicable("no message acknowledged before a settle was first sent after a connection open to that settle began streaming its chat")
	}
	return passed("%d messages streamed on the connections open to their device's settle", judged)
}

// second is a second in the lines' time unit (nanoseconds).
const second = int64(1e9)

// owedUnstreamed judges a connection open to its device's settle that
// streamed nothing of chat: it owed every message first sent allowance or
// more after its connect and acknowledged a second or more before the
// settle, and since it streamed none, any such message fails.
func (f *facts) owedUnstreamed(dev string, c conn, chat string, settled int, allowance int64) (int, *verdict) {
	connectT, settledT := f.lines[c.open].Time, f.lines[settled].Time
	done := map[msgID]bool{}
	n := 0
	for _, a := range f.acks {
		m := msgID{a.seq, a.id}
		if a.chat != chat || done[m] || a.at >= settled {
			continue
		}
		done[m] = true // its first acknowledgement decides
		if a.seq <= f.initial {
			continue // first sent before the run
		}
		first := f.firstSent(chat, a.key)
		if first >= len(f.lines) || first < c.open || f.lines[first].Time-connectT < allowance || settledT-f.lines[a.at].Time < second {
			continue
		}
		n++
		v := failed("message (%d, %q) of chat %s, first sent on line %d a second (at-connect: any time) or more after device %s connected (line %d) and acknowledged on line %d a second or more before its settle (line %d), was never streamed on that connection, which streamed nothing of the chat",
			m.seq, m.id, chat, fileLine(first), dev, fileLine(c.open), fileLine(a.at), fileLine(settled))
		return n, &v
	}
	return n, nil
}

// firstSent is the index of the first persist invoke of key in chat.
func (f *facts) firstSent(chat, key string) int {
	for i, l := range f.lines {
		if l.Type == tInvoke && l.F == "persist" && l.Chat == chat && l.Key == key {
			return i
		}
	}
	return len(f.lines)
}
