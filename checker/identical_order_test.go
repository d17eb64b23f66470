package checker

import (
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history"
)

func init() {
	everyInvariant[NameIdenticalOrder] = invariantCase{
		breaks: func() *hb { b, _, _ := swappedForD2(); return b },
		keeps:  func() *hb { b, _ := deliveredChat(); return b },
	}
}

// swappedForD2 pushes d2 seq 1 with seq 2's message id.
func swappedForD2() (b *hb, push int, msg dumpLines) {
	b = newHB()
	b.join("A", "u1")
	b.join("A", "u2")
	b.connect("d1", "u1")
	b.connect("d2", "u2")
	b.send(1, "A", "k1", 1)
	b.send(2, "A", "k2", 2)
	b.push("d1", "A", 1, 2)
	push = b.pushIDs("d2", "A", []uint64{1}, []string{"m-k2"}, false)
	msg = b.dump(false)
	return b, push, msg
}

func TestIdenticalOrderFailsOnAnotherMessageAtASequence(t *testing.T) {
	b, push, msg := swappedForD2()
	res := mustFail(t, b.check(t), NameIdenticalOrder, push, msg.msg["m-k1"])
	mustContain(t, res.Detail, `gives chat "A" seq 1 another message id than the final messages line`)
}

// Without the final table, two devices shown different messages at one
// sequence fail by the two pushes; one id at two sequences fails too.
func TestIdenticalOrderBetweenDevices(t *testing.T) {
	b := newHB()
	b.join("A", "u1")
	b.join("A", "u2")
	b.connect("d1", "u1")
	b.connect("d2", "u2")
	b.invoke(1, "A", "k1") // outcome unknown: no ack to compare with
	first := b.pushIDs("d1", "A", []uint64{1}, []string{"x"}, false)
	second := b.pushIDs("d2", "A", []uint64{1}, []string{"y"}, false)
	res := mustFail(t, b.check(t), NameIdenticalOrder, first, second)
	mustContain(t, res.Detail, "two different message ids")

	b = newHB()
	b.join("A", "u1")
	b.connect("d1", "u1")
	b.invoke(1, "A", "k1")
	b.invoke(2, "A", "k2") // two unknown outcomes: two messages no ack names
	first = b.pushIDs("d1", "A", []uint64{1}, []string{"x"}, false)
	second = b.pushIDs("d1", "A", []uint64{2}, []string{"x"}, false)
	res = mustFail(t, b.check(t), NameIdenticalOrder, first, second)
	mustContain(t, res.Detail, "two sequences, 1 and 2")
}

// With the final table, a pushed sequence it does not hold fails; a
// duplicate or a reordered arrival does not.
func TestIdenticalOrderPhantomAndDuplicates(t *testing.T) {
	b := newHB()
	b.join("A", "u1")
	b.connect("d1", "u1")
	b.send(1, "A", "k1", 1)
	phantom := b.pushIDs("d1", "A", []uint64{7}, []string{"m7"}, false)
	b.dump(false)
	mustFail(t, b.check(t), NameIdenticalOrder, phantom)

	b = newHB()
	b.join("A", "u1")
	b.connect("d1", "u1")
	b.send(1, "A", "k1", 1)
	b.send(2, "A", "k2", 2)
	b.push("d1", "A", 2, 1, 2, 1)
	b.dump(false)
	r := b.check(t)
	must(t, r, NameIdenticalOrder, Pass)
	if s := r.Stats.Delivery; s.Duplicates != 2 || s.OutOfOrder != 1 {
		t.Errorf("duplicates %d, out of order %d; want 2 and 1", s.Duplicates, s.OutOfOrder)
	}
}

func TestIdenticalOrderNotApplicableWithoutPushes(t *testing.T) {
	b := newHB()
	b.join("A", "u1")
	b.connect("d1", "u1")
	mustContain(t, mustNA(t, b.check(t), NameIdenticalOrder).Reason, "no push line")
}

// A push of a chat that no operation or final line names, with the
// messages table read, is a message the service never kept: it passed,
// since only chats the table or the operations named were compared
// (found by an outside tester writing histories from HISTORY.md).
func TestIdenticalOrderFailsOnAPushOfAChatTheTableDoesNotName(t *testing.T) {
	for _, others := range []bool{false, true} {
		b := newHB()
		b.join("B", "u1")
		b.connect("d1", "u1")
		if others {
			b.send(1, "A", "k1", 1) // another chat, in the table
		}
		push := b.pushIDs("d1", "B", []uint64{1}, []string{"forged"}, false)
		b.dump(false)
		b.tableRead(history.TableMessages, 0)
		res := mustFail(t, b.check(t), NameIdenticalOrder, push)
		mustContain(t, res.Detail, `gives chat "B" seq 1, which the final messages table does not hold`)
	}
}

// pushWithContent pushes chat A's seq 1 to d1 as carrying hash and
// sender, after k1's persist (payload_hash "h:k1", sender "u1").
func pushWithContent(hash, sender string) (b *hb, send sendLines, push int) {
	b = newHB()
	b.join("A", "u1")
	b.connect("d1", "u1")
	send = b.send(1, "A", "k1", 1)
	push = b.recv(history.Receiver{Kind: history.KindPush, Device: "d1", Chat: "A", Seqs: []uint64{1}, MessageIDs: []string{b.idAt("A", 1)},
		PayloadHashes: []string{hash}, Senders: []string{sender}})
	b.settled("d1")
	b.dump(false)
	return b, send, push
}

// A push that carries a message's content hash or sender is compared
// with the persist that created it: another chat's content pushed under
// the message's id (a leak), or a forged sender, fails; what was sent
// passes; an empty hash or sender is not compared.
func TestIdenticalOrderComparesWhatWasPushedWithWhatWasSent(t *testing.T) {
	b, send, push := pushWithContent("h:k1", "u1")
	res := must(t, b.check(t), NameIdenticalOrder, Pass)
	mustContain(t, res.Detail, "1 pushed message carried as their persist sent them")

	b, send, push = pushWithContent("h:other-chat", "u1")
	res = mustFail(t, b.check(t), NameIdenticalOrder, send.invoke, push)
	mustContain(t, res.Detail, "another content (payload hash) than the persist at line")

	b, send, push = pushWithContent("h:k1", "mallory")
	res = mustFail(t, b.check(t), NameIdenticalOrder, send.invoke, push)
	mustContain(t, res.Detail, "another sender than the persist at line")

	b, _, _ = pushWithContent("", "")
	res = must(t, b.check(t), NameIdenticalOrder, Pass)
	if strings.Contains(res.Detail, "carried as their persist sent them") {
		t.Fatalf("nothing to compare, yet: %s", res.Detail)
	}
}

// A message acknowledged only as a replay (its first attempt's answer was
// lost) is compared with what its key's persists sent, when they all sent
// the same and one of them created it (sole_writer, above
// initial_counter); a key reused with other content by a persist of
// unknown outcome leaves it uncompared. A persist answered as a replay
// created nothing, whatever it sent: a retry of other content answered
// so leaves the first send's content the message's (session
// hostile36's: it was counted among the makers, and a push of the
// retry's content passed).
func TestIdenticalOrderComparesAMessageOnlyReplayed(t *testing.T) {
	replayed := func(retryHash, otherHash, pushed string) (*hb, int, int) {
		b := newHB()
		b.join("A", "u1")
		b.connect("d1", "u1")
		first := b.invoke(1, "A", "k1")
		b.alloc(1, "A", 1)
		b.commit("A", "k1", 1, "m-k1")
		b.info(1, "A", "k1", "timeout")
		if otherHash != "" {
			b.invokeHash(1, "A", "k1", otherHash)
			b.info(1, "A", "k1", "timeout")
		}
		b.invokeHash(1, "A", "k1", retryHash)
		b.dedup(1, "A", "k1", 1, "m-k1")
		push := b.recv(history.Receiver{Kind: history.KindPush, Device: "d1", Chat: "A", Seqs: []uint64{1}, MessageIDs: []string{"m-k1"},
			PayloadHashes: []string{pushed}, Senders: []string{"u1"}})
		b.settled("d1")
		b.dump(false)
		return b, first, push
	}
	b, first, push := replayed("h:k1", "", "h:other-chat")
	res := mustFail(t, b.check(t), NameIdenticalOrder, first, push)
	mustContain(t, res.Detail, "another content (payload hash)")

	b, _, _ = replayed("h:k1", "", "h:k1")
	mustContain(t, must(t, b.check(t), NameIdenticalOrder, Pass).Detail, "1 pushed message carried as their persist sent them")

	// The replayed retry sent other content: it made no message, so the
	// message holds the first send's.
	b, first, push = replayed("h:reused", "", "h:reused")
	mustContain(t, mustFail(t, b.check(t), NameIdenticalOrder, first, push).Detail, "another content (payload hash)")
	b, _, _ = replayed("h:reused", "", "h:k1")
	must(t, b.check(t), NameIdenticalOrder, Pass)

	// A key reused with other content by a persist of unknown outcome:
	// which content was kept is not known, and is not compared; its one
	// sender is (field by field: the independent delivery oracle found a
	// forged sender passing here).
	b, _, _ = replayed("h:k1", "h:reused", "h:other-chat")
	must(t, b.check(t), NameIdenticalOrder, Pass)
	b, first, push = replayed("h:k1", "h:reused", "h:k1")
	for i := range b.h.Receivers {
		if b.h.Receivers[i].Line == push {
			b.h.Receivers[i].Senders = []string{"u9"}
		}
	}
	mustContain(t, mustFail(t, b.check(t), NameIdenticalOrder, first, push).Detail, "another sender")

	// Without sole_writer another writer may have created the message
	// under the key, with other content: its replays say nothing of it
	// (the independent delivery oracle found it compared).
	b, _, _ = replayed("h:k1", "", "h:other-chat")
	delete(b.h.Header.Extra, history.SoleWriterField)
	if res := must(t, b.check(t), NameIdenticalOrder, Pass); strings.Contains(res.Detail, "carried as their persist sent them") {
		t.Fatalf("without sole_writer, a message only replayed was compared: %s", res.Detail)
	}
}

// A message pushed at a sequence nothing is known at, while it was
// acknowledged at another, shows it where its sender was not told: with
// no final messages table, comparing pushes by sequence alone passed it
// (found by the independent delivery oracle, checker/oracle/delivery).
func TestIdenticalOrderFailsOnAMessagePushedAtAnotherSequence(t *testing.T) {
	b := newHB()
	b.join("A", "u2")
	b.connect("d1", "u2")
	b.send(1, "A", "k1", 1)
	second := b.send(1, "A", "k2", 3)
	push := b.pushIDs("d1", "A", []uint64{1, 2}, []string{"m-k1", "m-k2"}, false)
	res := mustFail(t, b.check(t), NameIdenticalOrder, push, second.ok)
	mustContain(t, res.Detail, `gives chat "A" seq 2 message id "m-k2", which the ack at line`)
	mustContain(t, res.Detail, "holds at seq 3")
}
