package checker

import (
	"fmt"

	"github.com/chatseq/chatseq/history"
)

// NameReadAuthorization: a chat's messages are read by its members
// alone. chatseq's HTTP API refuses anyone else's sync (403
// chat.not_a_member); the consistency strategy makes committed writes
// visible "to authorized readers".
const NameReadAuthorization = "read_authorization"

// checkReadAuthorization: a sync whose invoke names the user it read as,
// answered ok while that user was not a member of its chat (by the join
// and leave lines: none at its invoke, and no join before its ok) fails:
// the page, even an empty one, answered someone the chat's messages are
// not for. Judged only in chats the join lines name; a sync naming no
// user is not judged. The counterexample is the user's last leave line
// (if it had one), the sync's invoke and its ok.
func checkReadAuthorization(x *index) Result {
	v := newVerdict(NameReadAuthorization)
	states := x.Delivery
	if states != nil && states.StateReads == 0 {
		states = nil
	}
	if len(x.UserSyncs) == 0 && states == nil {
		v.notApplicable("no sync names the user it read as (bench records it on the syncs of a target that reads as a user: http), and no state_read line")
		return v.result()
	}
	m := x.MemberLinesOf()
	if m == nil {
		v.notApplicable("no join line: the history records no membership (bench records it with --receivers, --outsider-sends or --outsider-syncs)")
		return v.result()
	}
	judged, outside, bad, first := 0, 0, 0, -1
	for i, s := range x.UserSyncs {
		if !m.Recorded(s.Chat) {
			continue
		}
		judged++
		if m.MemberDuring(s.Chat, s.User, s.InvLine, doneOrEnd(s.DoneLine)) {
			continue
		}
		outside++
		if !s.OK() {
			continue
		}
		if bad == 0 || s.InvLine < x.UserSyncs[first].InvLine {
			first = i
		}
		bad++
	}
	if judged == 0 && (states == nil || states.StateReadsJudged == 0) {
		v.notApplicable("no sync naming its user in a chat whose membership the join lines record, and no state_read of one")
		return v.result()
	}
	if bad > 0 {
		s := x.UserSyncs[first]
		lines, how := outsiderLines(m, s.Chat, s.User, s.InvLine, []int{int(s.InvLine), int(s.DoneLine)})
		v.fail(lines, "%s by users not members of the chat answered ok (the chat's messages are its members'; a design that lets anyone read states read_membership: unchecked); the first: %q read chat %q at line %d (%s) and was answered at line %d",
			plural(bad, "sync"), x.SenderNames[s.User], x.ChatNames[s.Chat], s.InvLine, how, s.DoneLine)
	}
	if states != nil && states.StateReadAnswered.N > 0 {
		a := states.StateReadAnswered
		v.fail(a.First, "%s of a chat's delivery_state by users not members of it answered (a chat's delivery state is its members': docs/http-api.md, 403 otherwise); the first: %q read chat %q's at line %d",
			plural(a.N, "read"), states.StateReadUser, states.StateReadChat, a.First[0])
	}
	detail := fmt.Sprintf("%s naming their user judged against the join and leave lines, %d of them by non-members: none answered ok", plural(judged, "sync"), outside)
	if states != nil {
		detail += fmt.Sprintf("; %s of a chat's delivery_state judged, %d of them by non-members: each refused", plural(states.StateReadsJudged, "read"), states.StateReadsOutside)
	}
	v.pass("%s", detail)
	return v.result()
}

// readMembershipPromise: only a design that checks membership on read
// promises it.
func readMembershipPromise(j *judging) promise {
	switch j.con.ReadMembership {
	case history.ReadMembershipChecked:
		return promise{}
	case history.ReadMembershipUnchecked:
		return notPromised("contract read_membership: unchecked (the design's read path reads no membership)")
	}
	return undefinedValue(history.FieldReadMember, j.con.ReadMembership)
}
