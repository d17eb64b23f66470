package delivery

// readAuthorization, FORMAT.md ("What the checker judges of them"): "under
// read_membership: checked: a sync whose invoke names its user, answered
// ok (even with an empty page) while that user was not a member of its
// chat when it was invoked and did not join before the ok line, fails
// ... Nothing excuses it ... Only chats some join line names are judged,
// and only syncs that name a user." The operation table: "user" is an
// optional string of a sync invoke. The contract table: read_membership
// "checked" (the default) or "unchecked" ("the design's read path reads
// no membership"). The "Contract" notes: read_authorization "is n/a
// without join lines or without a sync naming its user".
//
// The same paragraph, of the state_read receiver line: "A state_read line
// not refused whose user was not a member of its chat at that line (a
// chat some join line before it names) fails it too: a chat's
// delivery_state, who has read up to where, is its members'". The
// receiver table: state_read has "time, chat, user", optional "refused
// (bool)": "the user read the chat's delivery_state ... "refused": true
// when the service refused it (an HTTP 4xx), else it was answered. A read
// that was neither (a network error, a 5xx) has no line".
//
// Readings:
//   - "the ok line": the next completion line (ok, fail or info) of the
//     invoke's process after it, when it is an ok; a sync never completed
//     or completed otherwise showed no one anything.
//   - "a member of its chat when it was invoked": the last join or leave
//     line of the chat and user before the invoke line is a join
//     (memberAt, as send_authorization reads it).
//   - "did not join before the ok line": no join line of the chat and
//     user between the invoke and the ok line.
//   - "a member of its chat at that line" (state_read): the last join or
//     leave line of the chat and user before the state_read line, in file
//     order (which is time order, ties as written), is a join (memberAt).
//     A state_read is one line, so nothing after it (a join at the same
//     time written after it) excuses it.
//   - "(a chat some join line before it names)": a join line of the chat,
//     any user's, earlier in the file than the state_read line; a
//     state_read of a chat whose first join comes after it is not judged.
//     (For syncs the text says "Only chats some join line names", with no
//     "before": a join anywhere in the file, as before.)
//   - "not refused": "refused" absent or false: it was answered. A refused
//     state_read of a judged chat is judged and passes (evidence, as a
//     named sync that ended fail is).
//   - Applicability: n/a under read_membership: unchecked; with no join
//     line anywhere; with neither a sync invoke naming a user nor a
//     state_read line; with nothing judged (no named sync in a chat some
//     join line names, no state_read of a chat a join line before it
//     names). The "Contract" note's "n/a ... without a sync naming its
//     user" predates state_read: read literally it would make n/a a
//     history whose only evidence is an answered state_read that, by the
//     paragraph above, "fails it too"; a verdict cannot be both, and the
//     oracle follows the paragraph that judges state_read lines (the
//     general rule: n/a when the file "holds none of the evidence it
//     reads").
func (f *facts) readAuthorization(hdr header) verdict {
	if hdr.Contract["read_membership"] == "unchecked" {
		return notApplicable("contract read_membership: unchecked")
	}
	named, stateReads := false, false
	recorded := map[string]bool{}
	for _, l := range f.lines {
		switch {
		case l.Type == tInvoke && l.F == "sync" && l.User != "":
			named = true
		case l.Type == tStateRead:
			stateReads = true
		case l.Type == tJoin:
			recorded[l.Chat] = true
		}
	}
	if !named && !stateReads {
		return notApplicable("no sync names its user and no state_read line")
	}
	if len(recorded) == 0 {
		return notApplicable("no join line: the history records no membership")
	}
	syncs, reads := 0, 0
	joinedBefore := map[string]bool{} // chats some join line before line i names
	for i, l := range f.lines {
		switch {
		case l.Type == tJoin:
			joinedBefore[l.Chat] = true
		case l.Type == tStateRead:
			// "A state_read line not refused whose user was not a member
			// of its chat at that line (a chat some join line before it
			// names) fails it too".
			if !joinedBefore[l.Chat] {
				continue
			}
			reads++
			if l.Refused {
				continue
			}
			if !f.memberAt(l.Chat, l.User, i) {
				return failed("state_read on line %d answered %s, not a member of chat %s then, the chat's delivery_state",
					fileLine(i), l.User, l.Chat)
			}
		case l.Type == tInvoke && l.F == "sync" && l.User != "" && recorded[l.Chat]:
			syncs++
			done := f.nextCompletion(i)
			if done >= len(f.lines) || f.lines[done].Type != tOK {
				continue
			}
			if !f.memberSometime(l.Chat, l.User, i, done) {
				return failed("sync invoked on line %d as %s, not a member of chat %s then nor joined before its ok on line %d",
					fileLine(i), l.User, l.Chat, fileLine(done))
			}
		}
	}
	if syncs+reads == 0 {
		return notApplicable("no sync naming its user in a chat a join line names, and no state_read of a chat a join line before it names")
	}
	return passed("%d syncs naming their user in chats whose membership is recorded and %d state_read lines of such chats: none answered to a non-member", syncs, reads)
}

// nextCompletion is the index of the first ok, fail or info line of the
// invoke at i's process after it; len(lines) if none.
func (f *facts) nextCompletion(i int) int {
	p := f.lines[i].Process
	for k := i + 1; k < len(f.lines); k++ {
		switch l := f.lines[k]; {
		case l.Process == p && (l.Type == tOK || l.Type == tFail || l.Type == tInfo):
			return k
		case l.Process == p && l.Type == tInvoke:
			return len(f.lines) // invoked again: this one never completed
		}
	}
	return len(f.lines)
}
