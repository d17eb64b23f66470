package online

import (
	"strings"

	"github.com/chatseq/chatseq/history"
)

// ReadAuthorization: a chat is read by its members alone (chatseq's HTTP
// API refuses anyone else's sync).
const ReadAuthorization = "read_authorization"

// readAuth is read_authorization's online part: a sync naming its user,
// answered ok while that user was not a member of its chat at its invoke
// and had not joined before the answer, fails
// (checker/read_authorization.go). Membership is push_authorization's
// record (pushes.joined, left), as send_authorization reads it; unlike a
// send, no earlier operation can excuse a read, so a chat joined late is
// judged too.
type readAuth struct {
	checked bool // the contract is read_membership: checked
	// outsiders: by process, the user of its outstanding sync made from
	// outside its chat (few: the reads a run makes from outside).
	outsiders map[int]string
}

// syncInvoked notes a sync naming user in a chat whose membership is
// recorded: a non-member's is kept to be judged at its answer.
func (o *Checker) syncInvoked(process int, op *openOp, user string) {
	s := &o.readAuth
	if len(s.outsiders) > 0 {
		delete(s.outsiders, process) // an invoke never answered
	}
	if !s.checked || user == "" || !o.sendAuth.recorded[op.chat] {
		return
	}
	if o.memberNow(member{op.chat, o.userOf(user)}) {
		return
	}
	if s.outsiders == nil {
		s.outsiders = map[int]string{}
	}
	s.outsiders[process] = strings.Clone(user)
}

// syncAnswered judges process's sync op answered by e: ok to a user who
// was not a member at its invoke and has not joined since breaks
// read_authorization.
func (o *Checker) syncAnswered(process int, op *openOp, e *history.Event) {
	s := &o.readAuth
	user, outside := s.outsiders[process]
	if !outside {
		return
	}
	delete(s.outsiders, process)
	k := member{op.chat, o.userOf(user)}
	if e.Kind != history.KindOK || o.disordered || o.pushes.joined[k] > op.line {
		return
	}
	lines, how := o.outsiderLines(k, []int{int(op.line), e.Line})
	o.violate(ReadAuthorization, lines, e.Time, "%q read chat %q at line %d (%s) and was answered at line %d: a non-member's read (refused as not_a_member under read_membership: checked)",
		user, o.names[op.chat], op.line, how, e.Line)
}
