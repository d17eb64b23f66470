package delivery

// sendAuthorization, FORMAT.md ("What the checker judges of them"): "under
// send_membership: checked: a persist answered ok whose sender was not a
// member of its chat when it was invoked (no join line of the user and
// chat before the invoke line, or a leave after the last such join) and
// did not join before the ok line fails, unless the ok is a replay
// ("dedup": true) and another persist of its key (as key_scope scopes
// it), not one that ended fail, invoked before that ok line, was sent by
// a user who was a member of the chat at that persist's invoke or joined
// it between that invoke and the ok line ... Only chats some join line names
// are judged (their membership is recorded); a persist without a sender
// is not judged." The contract table: send_membership "checked" (the
// default) or "unchecked" ("the design's send path reads no membership").
//
// Readings (each rule below quotes the words it implements):
//   - "its ok line": the next completion line of the invoke's process
//     after it (FORMAT.md pairs an invoke with its process's next
//     completion), when that line is an ok.
//   - "a member ... when it was invoked": the last join or leave line of
//     the chat and user before the invoke line (file order, which is
//     time order) is a join (memberAt).
//   - "the ok is a replay": the ok line's dedup is true; "not one that
//     ended fail": that persist's completion (if any) is not a fail line.
//   - "did not join before the ok line": no join line of the chat and
//     user between the invoke and the ok line.
//   - "another persist of its key (as key_scope scopes it)": an invoke of
//     the same chat and key, other than this one, before the ok line; the
//     generated histories state no key_scope, so its default, chat, is
//     the scope: the sender does not enter the key.
//   - "Only chats some join line names": a chat with at least one join
//     line anywhere in the file.
//   - Applicability: n/a under send_membership: unchecked ("the contract
//     does not require it"), with no join line anywhere ("the history
//     records no membership"), and with no persist with a sender in a
//     chat some join line names (none of its evidence).
func (f *facts) sendAuthorization(hdr header) verdict {
	if hdr.Contract["send_membership"] == "unchecked" {
		return notApplicable("contract send_membership: unchecked")
	}
	recorded := map[string]bool{}
	for _, l := range f.lines {
		if l.Type == tJoin {
			recorded[l.Chat] = true
		}
	}
	if len(recorded) == 0 {
		return notApplicable("no join line: the history records no membership")
	}
	judged := 0
	for i, l := range f.lines {
		if l.Type != tInvoke || l.F != "persist" || l.Sender == "" || !recorded[l.Chat] {
			continue
		}
		judged++
		done := f.completion[i]
		if done >= len(f.lines) || f.lines[done].Type != tOK {
			continue
		}
		if f.memberSometime(l.Chat, l.Sender, i, done) {
			continue
		}
		replay := f.lines[done].Dedup != nil && *f.lines[done].Dedup
		excused := false
		for k, o := range f.lines {
			if k >= done || !replay {
				break
			}
			failedSend := f.completion[k] < len(f.lines) && f.lines[f.completion[k]].Type == tFail
			if k != i && o.Type == tInvoke && o.F == "persist" && o.Chat == l.Chat && o.Key == l.Key && o.Sender != "" &&
				!failedSend && f.memberSometime(o.Chat, o.Sender, k, done) {
				excused = true
				break
			}
		}
		if !excused {
			return failed("persist invoked on line %d by %s, not a member of chat %s then nor joined before its ok on line %d, and no member sent its key before",
				fileLine(i), l.Sender, l.Chat, fileLine(done))
		}
	}
	if judged == 0 {
		return notApplicable("no persist with a sender in a chat a join line names")
	}
	return passed("%d persists with a sender in chats whose membership is recorded: none answered ok to a non-member", judged)
}

// memberSometime: "a member of the chat when it was invoked ... or joined
// it between that invoke and the ok line": user's last join or leave line
// of chat before line from is a join, or a join of it lies between from
// and to.
func (f *facts) memberSometime(chat, user string, from, to int) bool {
	if f.memberAt(chat, user, from) {
		return true
	}
	for k := from + 1; k < to && k < len(f.lines); k++ {
		if l := f.lines[k]; l.Type == tJoin && l.Chat == chat && l.User == user {
			return true
		}
	}
	return false
}
