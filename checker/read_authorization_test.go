package checker

import (
	"testing"

	"github.com/chatseq/chatseq/history"
)

func init() {
	everyInvariant[NameReadAuthorization] = invariantCase{
		breaks: func() *hb { b, _, _ := readByAnOutsider(); return b },
		keeps: func() *hb {
			b := newHB()
			b.join("A", "u1")
			b.send(1, "A", "k1", 1)
			b.syncAs(1, "A", "u1")
			b.syncOK(1, "A", 1)
			return b
		},
	}
}

// syncAs is a sync invoke of process p on chat after 0 that names user
// as its reader.
func (b *hb) syncAs(p int, chat, user string) int {
	return b.add(history.Event{Kind: history.KindInvoke, Process: p, F: history.FSync, Chat: chat, Limit: 100, Sender: user})
}

// readByAnOutsider: u1 is A's member; outsider, a member of no chat,
// reads A and is answered.
func readByAnOutsider() (b *hb, invoke, ok int) {
	b = newHB()
	b.join("A", "u1")
	b.send(1, "A", "k1", 1)
	invoke = b.syncAs(2, "A", "outsider")
	ok = b.syncOK(2, "A", 1)
	return b, invoke, ok
}

// readCases are histories read_authorization judges, the verdict the
// check after the run gives each (and words of its detail), and whether
// the online check reports it: it judges every read as the check after
// the run does, so the two agree on each.
var readCases = []sendCase{
	{"an outsider answered a page", func() (*hb, []int) {
		b, inv, ok := readByAnOutsider()
		return b, []int{inv, ok}
	}, Fail, `"outsider" read chat "A" at line 6 (never a member of it)`, true},
	// An empty page is an answer too: the read was not refused.
	{"an outsider answered an empty page", func() (*hb, []int) {
		b := newHB()
		b.join("A", "u1")
		inv := b.syncAs(2, "A", "outsider")
		ok := b.syncOK(2, "A")
		return b, []int{inv, ok}
	}, Fail, "1 sync by users not members", true},
	{"an outsider refused as not_a_member", func() (*hb, []int) {
		b := newHB()
		b.join("A", "u1")
		b.send(1, "A", "k1", 1)
		b.syncAs(2, "A", "outsider")
		b.add(history.Event{Kind: history.KindFail, Process: 2, F: history.FSync, Chat: "A", Error: "not_a_member"})
		b.syncAs(1, "A", "u1")
		b.syncOK(1, "A", 1)
		return b, nil
	}, Pass, "2 syncs naming their user judged against the join and leave lines, 1 of them by non-members", false},
	{"a member who left", func() (*hb, []int) {
		b := newHB()
		b.join("A", "u1")
		b.join("A", "u2")
		b.send(1, "A", "k1", 1)
		leave := b.leave("A", "u2")
		inv := b.syncAs(2, "A", "u2")
		ok := b.syncOK(2, "A", 1)
		return b, []int{leave, inv, ok}
	}, Fail, "it left at line", true},
	{"joined while in flight", func() (*hb, []int) {
		b := newHB()
		b.join("A", "u1")
		b.syncAs(2, "A", "u2")
		b.join("A", "u2")
		b.syncOK(2, "A")
		return b, nil
	}, Pass, "", false},
	{"left while in flight", func() (*hb, []int) {
		b := newHB()
		b.join("A", "u2")
		b.syncAs(2, "A", "u2")
		b.leave("A", "u2")
		b.syncOK(2, "A")
		return b, nil
	}, Pass, "", false},
	// No key excuses a read: a chat joined after the first operation is
	// judged online as after the run.
	{"a chat joined after the first operation", func() (*hb, []int) {
		b := newHB()
		b.join("A", "u1")
		b.send(1, "A", "k1", 1)
		b.join("B", "u1")
		inv := b.syncAs(2, "B", "u2")
		ok := b.syncOK(2, "B")
		return b, []int{inv, ok}
	}, Fail, `"u2" read chat "B"`, true},
	{"no sync names its user", func() (*hb, []int) {
		b := newHB()
		b.join("A", "u1")
		b.syncInvoke(2, "A", 0, 100)
		b.syncOK(2, "A")
		return b, nil
	}, notApplicable, "no sync names the user", false},
	{"no join line", func() (*hb, []int) {
		b := newHB()
		b.syncAs(2, "A", "outsider")
		b.syncOK(2, "A")
		return b, nil
	}, notApplicable, "no join line", false},
	{"a chat no join line names", func() (*hb, []int) {
		b := newHB()
		b.join("B", "u1")
		b.syncAs(2, "A", "outsider")
		b.syncOK(2, "A")
		return b, nil
	}, notApplicable, "no sync naming its user in a chat", false},
	{"a design that checks no membership on read", func() (*hb, []int) {
		b, _, _ := readByAnOutsider()
		b.h.Header.Contract.ReadMembership = history.ReadMembershipUnchecked
		return b, nil
	}, notApplicable, "read_membership: unchecked", false},
}

// Each case's verdict after the run, and its counterexample's lines.
func TestReadAuthorization(t *testing.T) { judgeMembershipCases(t, NameReadAuthorization, readCases) }

// A non-member's read answered is reported online at its answer, as the
// check after the run fails it; what the check after the run passes is
// never reported.
func TestOnlineReadAuthorization(t *testing.T) {
	judgeMembershipCasesOnline(t, NameReadAuthorization, readCases)
}

func (b *hb) stateRead(chat, user string, refused bool) int {
	return b.recv(history.Receiver{Kind: history.KindStateRead, Chat: chat, User: user, Refused: refused})
}

// stateReadCases: a chat's delivery_state is its members' (docs/http-api.md:
// 403 otherwise). A service answering it to anyone passed: bench never
// read it as a non-member (an outside tester's, session 35). Judged after
// the run only (bench reads it as its outsider devices settle).
var stateReadCases = []sendCase{
	{"an outsider answered a chat's delivery_state", func() (*hb, []int) {
		b := newHB()
		b.join("A", "u1")
		b.send(1, "A", "k1", 1)
		return b, []int{b.stateRead("A", "outsider-push-0", false)}
	}, Fail, `1 read of a chat's delivery_state by users not members of it answered`, false},
	{"an outsider refused it", func() (*hb, []int) {
		b := newHB()
		b.join("A", "u1")
		b.stateRead("A", "outsider-push-0", true)
		return b, nil
	}, Pass, "1 read of a chat's delivery_state judged, 1 of them by non-members: each refused", false},
	{"a member answered it", func() (*hb, []int) {
		b := newHB()
		b.join("A", "u1")
		b.stateRead("A", "u1", false)
		return b, nil
	}, Pass, "1 read of a chat's delivery_state judged, 0 of them by non-members", false},
	{"a member who left answered it", func() (*hb, []int) {
		b := newHB()
		b.join("A", "u1")
		b.leave("A", "u1")
		return b, []int{b.stateRead("A", "u1", false)}
	}, Fail, `"u1" read chat "A"'s`, false},
	{"a chat no join line names", func() (*hb, []int) {
		b := newHB()
		b.join("B", "u1")
		b.stateRead("A", "outsider-push-0", false)
		return b, nil
	}, notApplicable, "no sync naming its user in a chat", false},
}

func TestReadAuthorizationJudgesDeliveryStateReads(t *testing.T) {
	judgeMembershipCases(t, NameReadAuthorization, stateReadCases)
}
