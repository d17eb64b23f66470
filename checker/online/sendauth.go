package online

import (
	"strings"

	"github.com/chatseq/chatseq/history"
)

// SendAuthorization is ADR-004 §3's step 2 as chatseq's history format
// names it: a non-member's send is refused.
const SendAuthorization = "send_authorization"

// sendAuth is send_authorization's online part: a persist answered ok as
// new (dedup false) whose sender was not a member of its chat at its
// invoke, and did not join before the answer, fails
// (checker/send_authorization.go). Only a replay (dedup true) may be
// excused, by a member's earlier send of its key: replays are left to the
// check after the run, so nothing is kept per key and what is kept does
// not grow with the run. Who joined when is push_authorization's record
// (pushes.joined, left).
type sendAuth struct {
	checked  bool           // the contract is send_membership: checked
	recorded map[int32]bool // chats a join line named
	// outsiders: by process, the sender of its outstanding persist sent
	// from outside its chat (few: the sends a run makes from outside).
	outsiders map[int]string
}

func (s *sendAuth) joined(chat int32) {
	if s.recorded == nil {
		s.recorded = map[int32]bool{}
		s.outsiders = map[int]string{}
	}
	s.recorded[chat] = true
}

// sendInvoked notes a persist's invoke in a chat whose membership is
// recorded: a non-member's persist is kept to be judged at its answer.
func (o *Checker) sendInvoked(process int, op *openOp, sender string) {
	s := &o.sendAuth
	if len(s.outsiders) > 0 {
		delete(s.outsiders, process) // an invoke never answered
	}
	if !s.checked || !s.recorded[op.chat] || sender == "" {
		return
	}
	if !o.memberNow(member{op.chat, o.senderUser(process, sender)}) {
		s.outsiders[process] = strings.Clone(sender)
	}
}

// sendAnswered judges process's persist op answered by e: ok to a user
// who was not a member at its invoke and has not joined since, as new
// (a replay is left to the check after the run), breaks
// send_authorization.
func (o *Checker) sendAnswered(process int, op *openOp, e *history.Event) {
	s := &o.sendAuth
	sender, outside := s.outsiders[process]
	if !outside {
		return
	}
	delete(s.outsiders, process)
	if e.Kind != history.KindOK || e.Dedup || o.disordered {
		return
	}
	k := member{op.chat, o.userOf(sender)}
	if o.pushes.joined[k] > op.line {
		return // joined while the send was in flight
	}
	lines, how := o.outsiderLines(k, []int{int(op.line), e.Line})
	o.violate(SendAuthorization, lines, e.Time, "%q sent to chat %q at line %d (%s) and was acknowledged seq %d at line %d: a non-member's send (ADR-004 §3 refuses it: not_a_member)",
		sender, o.names[op.chat], op.line, how, e.Seq, e.Line)
}

// memberNow says whether k's user is a member of k's chat by the join and
// leave lines so far.
func (o *Checker) memberNow(k member) bool {
	if o.pushes.joined[k] == 0 {
		return false
	}
	_, left := o.pushes.left[k]
	return !left
}

// outsiderLines is the counterexample of an operation (its lines, ops) by
// k's user, not a member of k's chat: its leave line first, if it had
// one, and how it was not a member.
func (o *Checker) outsiderLines(k member, ops []int) ([]int, string) {
	leave, left := o.pushes.left[k]
	if !left {
		return ops, "never a member of it"
	}
	return append([]int{int(leave)}, ops...), "it had left"
}
