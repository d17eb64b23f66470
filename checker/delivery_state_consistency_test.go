package checker

import (
	"testing"

	"github.com/chatseq/chatseq/history"
)

func init() {
	everyInvariant[NameDeliveryStateConsistency] = invariantCase{
		breaks: func() *hb { b, _ := ackAhead(); return b },
		keeps:  func() *hb { b, _ := deliveredChat(); return b },
	}
}

// ackAhead acknowledges seq 2 having been pushed only seq 1.
func ackAhead() (*hb, int) {
	b := newHB()
	b.join("A", "u1")
	b.connect("d1", "u1")
	b.send(1, "A", "k1", 1)
	b.send(2, "A", "k2", 2)
	b.push("d1", "A", 1)
	ack := b.deliveryAck("d1", "A", 2)
	b.push("d1", "A", 2)
	return b, ack
}

func TestDeliveryAckAheadOfWhatTheDeviceReceivedFails(t *testing.T) {
	b, ack := ackAhead()
	res := mustFail(t, b.check(t), NameDeliveryStateConsistency, ack)
	mustContain(t, res.Detail, `device "d1" acknowledged chat "A" up to seq 2 at line`)
}

// A row above every acknowledgement of the user fails with the row and
// the highest acknowledgement.
func TestDeliveryStateAheadOfTheAcksFails(t *testing.T) {
	b, l := deliveredChat()
	b.h.Receivers[len(b.h.Receivers)-2].Seq = 5 // u1's row
	res := mustFail(t, b.check(t), NameDeliveryStateConsistency, l.rowU1, l.ackD1)
	mustContain(t, res.Detail, "the server recorded an acknowledgement no device sent")
}

// A row below an acknowledgement sent on a connection open until the
// device settled fails: the ack was lost or lowered the state. One sent
// on a connection that dropped may have been lost in flight: not failed,
// but a row it alone would bound is not judged from below, so the verdict
// is unknown rather than a pass (a service that closed the connection on
// every ack passed so: an outside tester's finding).
func TestDeliveryStateBehindAKeptAckFails(t *testing.T) {
	b, l := deliveredChat()
	b.h.Receivers[len(b.h.Receivers)-2].Seq = 1
	res := mustFail(t, b.check(t), NameDeliveryStateConsistency, l.ackD1, l.settledD1, l.rowU1)
	mustContain(t, res.Detail, "an acknowledgement was lost or lowered the state")

	droppedAfterItsAck := func() *hb {
		b := newHB()
		b.join("A", "u1")
		b.connect("d1", "u1")
		b.send(1, "A", "k1", 1)
		b.push("d1", "A", 1)
		b.deliveryAck("d1", "A", 1)
		b.disconnect("d1")
		b.settled("d1")
		b.dump(false)
		return b
	}
	b = droppedAfterItsAck()
	b.deliveryStateRead() // read and empty: the ack may never have arrived
	res = must(t, b.check(t), NameDeliveryStateConsistency, Unknown)
	mustContain(t, res.Detail, `1 (chat, user) acknowledged but none of their acknowledgements was sent on a connection still open`)
	mustContain(t, res.Detail, `first: user "u1" of chat "A", highest acknowledgement seq 1 at line`)

	// The row is there and at the ack: nothing was lost, but nothing
	// bounded it either.
	b = droppedAfterItsAck()
	b.deliveryState("A", "u1", 1)
	must(t, b.check(t), NameDeliveryStateConsistency, Unknown)

	// A table present but not read says nothing of a (chat, user) it has
	// no row for: no row is left unjudged.
	b = droppedAfterItsAck()
	b.deliveryState("A", "u2", 0)
	must(t, b.check(t), NameDeliveryStateConsistency, Pass)

	// The same ack again on a connection open to the settle bounds it.
	b = newHB()
	b.join("A", "u1")
	b.connect("d1", "u1")
	b.send(1, "A", "k1", 1)
	b.push("d1", "A", 1)
	b.deliveryAck("d1", "A", 1)
	b.disconnect("d1")
	b.connect("d1", "u1")
	b.deliveryAck("d1", "A", 1)
	b.settled("d1")
	b.dump(false)
	b.deliveryState("A", "u1", 1)
	b.deliveryStateRead()
	must(t, b.check(t), NameDeliveryStateConsistency, Pass)
}

// A delivery_state table read without the row of a kept ack fails with
// the table_read line; two rows for one (chat, user) fail.
func TestDeliveryStateMissingAndDoubleRows(t *testing.T) {
	b := newHB()
	b.join("A", "u1")
	b.connect("d1", "u1")
	b.send(1, "A", "k1", 1)
	b.push("d1", "A", 1)
	ack := b.deliveryAck("d1", "A", 1)
	settled := b.settled("d1")
	b.dump(false)
	read := b.deliveryStateRead()
	mustFail(t, b.check(t), NameDeliveryStateConsistency, ack, settled, read)

	// At or below initial_counter too: a missing row is 0, as a row of 0
	// is, and that failed (the independent delivery oracle found a missing
	// row passed where a row of 0 failed).
	b = newHB()
	b.h.Header.Extra[history.InitialCounterField] = "1"
	b.join("A", "u1")
	b.connect("d1", "u1")
	b.catchUp("d1", "A", 1)
	ack = b.deliveryAck("d1", "A", 1)
	settled = b.settled("d1")
	read = b.deliveryStateRead()
	mustFail(t, b.check(t), NameDeliveryStateConsistency, ack, settled, read)

	b, _ = deliveredChat()
	first := b.h.Receivers[len(b.h.Receivers)-2].Line
	second := b.deliveryState("A", "u1", 2)
	res := mustFail(t, b.check(t), NameDeliveryStateConsistency, first, second)
	mustContain(t, res.Detail, "two delivery_state rows")
}

// A history cut short drops the rows: a pass is unknown, an ack that ran
// ahead still fails.
func TestDeliveryStateCutShort(t *testing.T) {
	b, _ := deliveredChat()
	b.h.Header.EndLine = true
	must(t, b.check(t), NameDeliveryStateConsistency, Unknown)

	b, ack := ackAhead()
	b.dump(false)
	b.deliveryState("A", "u1", 2)
	b.h.Header.EndLine = true
	mustFail(t, b.check(t), NameDeliveryStateConsistency, ack)
}

// A delivery_state table read, even empty, is judged as it stands with no
// receiver line (FORMAT.md): no row, no acknowledgement, a pass. Not read,
// nothing is known: n/a (the delivery oracle's seed 535840 passed it).
func TestAnEmptyDeliveryStateReadAloneIsJudged(t *testing.T) {
	const read = `{"format":"chatseq-history","version":1,"end_line":true}
{"type":"table_read","table":"delivery_state","lines":0}
{"type":"end"}`
	r := mustExact(t, read)
	must(t, r, NameDeliveryStateConsistency, Pass)
	mustNA(t, r, NameIdenticalOrder)
	if r.Stats.Delivery != nil {
		t.Errorf("delivery statistics without a receiver line: %+v", r.Stats.Delivery)
	}
	mustNA(t, mustExact(t, `{"format":"chatseq-history","version":1,"end_line":true}
{"type":"end"}`), NameDeliveryStateConsistency)
}
