package checker

import (
	"math"
	"strconv"

	"github.com/chatseq/chatseq/checker/internal/store"
	"github.com/chatseq/chatseq/history"
)

// NameSendAuthorization is ADR-004 §3's step 2: a send from a user who
// is not a member of the chat is refused (not_a_member).
const NameSendAuthorization = "send_authorization"

// checkSendAuthorization: a persist answered ok whose sender was not a
// member of its chat (by the history's join and leave lines) at its
// invoke, and did not join before its completion, fails, unless another
// persist of its key (as key_scope scopes it) was invoked before that
// completion by a sender who was a member at its own invoke, or joined
// between its invoke and that completion: ADR-004 §6/§7 look the
// key up before the membership, so a retry of a member's key may get the
// cached answer (INVARIANTS.md, "Step order"). Judged only in chats the
// join lines name, whose membership the history records; a persist
// without a sender is not judged. The counterexample is the sender's
// last leave line (if it had one), the persist's invoke and its ok.
func checkSendAuthorization(x *index) Result {
	v := newVerdict(NameSendAuthorization)
	m := x.MemberLinesOf()
	if m == nil {
		v.notApplicable("no join line: the history records no membership (bench records it with --receivers or --outsider-sends)")
		return v.result()
	}
	judged, unsent, outside, bad := 0, 0, 0, 0
	var first int32 = -1
	for i := range x.Ops.Count() {
		o := int32(i)
		op := x.Ops.At(o)
		if op.Fn != store.FnPersist || !m.Recorded(op.Chat) {
			continue
		}
		s := op.Sender()
		if s == store.NoSender || x.SenderNames[s] == "" {
			unsent++
			continue
		}
		judged++
		if m.MemberDuring(op.Chat, s, op.InvLine, doneOrEnd(op.DoneLine)) {
			continue
		}
		outside++
		if op.Status != store.StOK || x.IsDedup(o) && keySentByMember(x, m, o) {
			continue
		}
		if bad == 0 || op.InvLine < x.Ops.At(first).InvLine {
			first = o // operations come by chat: the earliest in the file
		}
		bad++
	}
	if judged == 0 {
		v.notApplicable("no persist with a sender in a chat whose membership the join lines record")
		return v.result()
	}
	if bad > 0 {
		op := x.Ops.At(first)
		lines, how := outsiderLines(m, op.Chat, op.Sender(), op.InvLine, x.OpLines(first))
		v.fail(lines, "%s by users not members of the chat answered ok (ADR-004 §3 refuses them: not_a_member; a design that lets anyone send states send_membership: unchecked); the first: %q sent to chat %q at line %d (%s) and was acknowledged seq %d at line %d",
			plural(bad, "persist"), x.SenderNames[op.Sender()], x.ChatNames[op.Chat], op.InvLine, how, x.AckSeq(first), op.DoneLine)
	}
	if unsent > 0 {
		v.note("%s without a sender not judged", plural(unsent, "persist"))
	}
	v.pass("%s judged against the join and leave lines, %d of them by non-members: none answered ok", plural(judged, "persist"), outside)
	return v.result()
}

// keySentByMember says whether another persist of o's key, not one that
// failed, was invoked before o completed by a sender who was a member of
// the chat at its invoke or joined before o completed: o's answer, a
// replay, may then be that persist's, looked up by key before the
// membership. A failed persist left no record to answer from (a fail
// took no effect), and an answer as new (dedup false) came from none:
// either excused a non-member's new message (an outside tester's). (Sent
// before o's completion, not the other's: what excuses an answer is
// known when it comes; the online check excuses any member's send of
// the key, and so reports less, never more.)
func keySentByMember(x *index, m *store.MemberLines, o int32) bool {
	op := x.Ops.At(o)
	if op.Key < 0 {
		return false
	}
	for _, p := range x.KeyOps(op.Key) {
		po := x.Ops.At(p)
		if p == o || po.InvLine >= op.DoneLine || po.Status == store.StFail {
			continue
		}
		if s := po.Sender(); s != store.NoSender && m.MemberDuring(po.Chat, s, po.InvLine, op.DoneLine) {
			return true
		}
	}
	return false
}

// sendMembershipPromise: only a design that checks membership on send
// promises it.
func sendMembershipPromise(j *judging) promise {
	switch j.con.SendMembership {
	case history.SendMembershipChecked:
		return promise{}
	case history.SendMembershipUnchecked:
		return notPromised("contract send_membership: unchecked (the design's send path reads no membership)")
	}
	return undefinedValue(history.FieldSendMember, j.con.SendMembership)
}

// outsiderLines is the counterexample of an operation at line inv by a
// user not a member of chat (its lines, ops): the user's last leave line
// before it first, if it had one, and how it was not a member.
func outsiderLines(m *store.MemberLines, chat int32, user uint32, inv int32, ops []int) ([]int, string) {
	leave := m.LastLeave(chat, user, inv)
	if leave <= 0 {
		return ops, "never a member of it"
	}
	return append([]int{int(leave)}, ops...), "it left at line " + strconv.Itoa(int(leave))
}

// doneOrEnd is an operation's completion line, or past every line for
// one never completed: a member may have joined at any time after.
func doneOrEnd(line int32) int32 {
	if line == 0 {
		return math.MaxInt32
	}
	return line
}
