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
// Readings:
//   - "the ok line": the next completion line (ok, fail or info) of the
//     invoke's process after it, when it is an ok; a sync never completed
//     or completed otherwise showed no one anything.
//   - "a member of its chat when it was invoked": the last join or leave
//     line of the chat and user before the invoke line is a join
//     (memberAt, as send_authorization reads it).
//   - "did not join before the ok line": no join line of the chat and
//     user between the invoke and the ok line.
//   - Applicability: n/a under read_membership: unchecked; with no sync
//     invoke naming a user; with no join line anywhere; with no sync
//     naming a user in a chat some join line names.
func (f *facts) readAuthorization(hdr header) verdict {
	if hdr.Contract["read_membership"] == "unchecked" {
		return notApplicable("contract read_membership: unchecked")
	}
	named := false
	recorded := map[string]bool{}
	for _, l := range f.lines {
		switch {
		case l.Type == tInvoke && l.F == "sync" && l.User != "":
			named = true
		case l.Type == tJoin:
			recorded[l.Chat] = true
		}
	}
	if !named {
		return notApplicable("no sync names its user")
	}
	if len(recorded) == 0 {
		return notApplicable("no join line: the history records no membership")
	}
	judged := 0
	for i, l := range f.lines {
		if l.Type != tInvoke || l.F != "sync" || l.User == "" || !recorded[l.Chat] {
			continue
		}
		judged++
		done := f.nextCompletion(i)
		if done >= len(f.lines) || f.lines[done].Type != tOK {
			continue
		}
		if !f.memberSometime(l.Chat, l.User, i, done) {
			return failed("sync invoked on line %d as %s, not a member of chat %s then nor joined before its ok on line %d",
				fileLine(i), l.User, l.Chat, fileLine(done))
		}
	}
	if judged == 0 {
		return notApplicable("no sync naming its user in a chat a join line names")
	}
	return passed("%d syncs naming their user in chats whose membership is recorded: none answered ok to a non-member", judged)
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
