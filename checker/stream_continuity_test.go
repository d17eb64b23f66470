package checker

import (
	"fmt"
	"testing"
)

func init() {
	everyInvariant[NameStreamContinuity] = invariantCase{
		breaks: func() *hb { b, _ := skippedOnALiveConnection(); return b },
		keeps:  func() *hb { return streamedAcrossAReconnect() },
	}
}

type holeLines struct{ connect, push1, push3, event2 int }

// skippedOnALiveConnection: d2's one connection is streamed chat A's
// seqs 1 and 3 but not 2 (a gateway dropping for a slow consumer); a
// catch-up fills the gap, so eventual_visibility passes.
func skippedOnALiveConnection() (*hb, holeLines) {
	var l holeLines
	b := newHB()
	b.join("A", "u1")
	b.join("A", "u2")
	b.connect("d1", "u1")
	l.connect = b.connect("d2", "u2")
	for s := uint64(1); s <= 3; s++ {
		b.send(1, "A", fmt.Sprintf("k%d", s), s)
		b.push("d1", "A", s)
	}
	l.push1 = b.push("d2", "A", 1)
	l.push3 = b.push("d2", "A", 3)
	b.catchUp("d2", "A", 2)
	b.settled("d1")
	b.settled("d2")
	l.event2 = b.dump(true).event[b.idAt("A", 2)]
	return b, l
}

// streamedAcrossAReconnect: d2 misses seq 2 only while disconnected, and
// catches it up; d1 is streamed seq 2 twice and 1 after 3.
func streamedAcrossAReconnect() *hb {
	b := newHB()
	b.join("A", "u1")
	b.join("A", "u2")
	b.connect("d1", "u1")
	b.connect("d2", "u2")
	b.send(1, "A", "k1", 1)
	b.push("d2", "A", 1)
	b.send(1, "A", "k2", 2)
	b.disconnect("d2")
	b.send(1, "A", "k3", 3)
	b.push("d1", "A", 2, 3, 2)
	b.push("d1", "A", 1)
	b.connect("d2", "u2")
	b.catchUp("d2", "A", 2)
	b.push("d2", "A", 3)
	b.settled("d1")
	b.settled("d2")
	b.dump(true)
	return b
}

func TestStreamContinuityFailsOnASkippedMessage(t *testing.T) {
	b, l := skippedOnALiveConnection()
	r := b.check(t)
	res := mustFail(t, r, NameStreamContinuity, l.connect, l.push1, l.push3, l.event2)
	mustContain(t, res.Detail, `device "d2"'s connection opened at line`)
	mustContain(t, res.Detail, "but not seq 2")
	must(t, r, NameEventualVisibility, Pass) // what the invariant adds
}

func TestStreamContinuityPassesAcrossAReconnect(t *testing.T) {
	must(t, streamedAcrossAReconnect().check(t), NameStreamContinuity, Pass)
}

// A hole while the user left and rejoined is no skip; without events or
// receivers the invariant is n/a.
func TestStreamContinuityMembershipAndNA(t *testing.T) {
	b := newHB()
	b.join("A", "u1")
	b.connect("d1", "u1")
	b.send(1, "A", "k1", 1)
	b.push("d1", "A", 1)
	b.leave("A", "u1")
	b.send(1, "A", "k2", 2)
	b.join("A", "u1")
	b.send(1, "A", "k3", 3)
	b.push("d1", "A", 3)
	b.dump(true)
	must(t, b.check(t), NameStreamContinuity, Pass)

	b, _ = skippedOnALiveConnection()
	b.h.Finals = b.h.Finals[:0]
	mustContain(t, mustNA(t, b.check(t), NameStreamContinuity).Reason, "no final events table")
	mustContain(t, mustNA(t, keepsEverything().check(t), NameStreamContinuity).Reason, "no receiver lines")
}
