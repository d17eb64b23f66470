package checker

import (
	"testing"

	"github.com/chatseq/chatseq/history"
)

// An answer that broke the service's API (error bad_response) fails
// api_conformance whatever the outcome recorded: a send's unknown, a
// sync's failure. The counterexample is the first such operation.
func TestAPIConformanceFailsOnABadResponse(t *testing.T) {
	b := newHB()
	b.send(1, "A", "k1", 1)
	inv := b.invoke(2, "A", "k2")
	done := b.info(2, "A", "k2", history.ErrorBadResponse)
	b.syncInvoke(3, "A", 0, 10)
	b.add(history.Event{Kind: history.KindFail, Process: 3, F: history.FSync, Chat: "A", Error: history.ErrorBadResponse})
	res := mustFail(t, b.check(t), NameAPIConformance, inv, done)
	mustContain(t, res.Detail, "2 violations")
	mustContain(t, res.Detail, `a persist on chat "A"`)
}

func TestAPIConformancePassesOtherErrorsAndIsNAWithoutCompletions(t *testing.T) {
	b := newHB()
	b.send(1, "A", "k1", 1)
	b.invoke(2, "A", "k2")
	b.info(2, "A", "k2", "timeout")
	b.invoke(3, "A", "k3")
	b.fail(3, "A", "k3", "not_a_member")
	must(t, b.check(t), NameAPIConformance, Pass)

	b = newHB()
	b.invoke(1, "A", "k1") // never answered
	mustContain(t, mustNA(t, b.check(t), NameAPIConformance).Reason, "no operation completed")
}

// A device's connection that ended on a push frame in breach of the push
// API (its disconnect line's error starts bad_frame) fails
// api_conformance: a push channel whose every frame was garbage passed,
// its devices catching everything up by sync (an outside tester's
// hostile push channel). A connection that ended otherwise does not.
func TestAPIConformanceFailsOnABadPushFrame(t *testing.T) {
	b := newHB()
	b.join("A", "u1")
	b.connect("d1", "u1")
	b.send(1, "A", "k1", 1)
	bad := b.recv(history.Receiver{Kind: history.KindDisconnect, Device: "d1", Error: "bad_frame: push channel: a frame that is not JSON: unexpected end"})
	b.connect("d1", "u1")
	b.catchUp("d1", "A", 1)
	b.dump(false)
	res := mustFail(t, b.check(t), NameAPIConformance, bad)
	mustContain(t, res.Detail, "1 device connection ended on a push frame in breach of the push channel's API")
	mustContain(t, res.Detail, "a frame that is not JSON")

	b = newHB()
	b.join("A", "u1")
	b.connect("d1", "u1")
	b.send(1, "A", "k1", 1)
	b.recv(history.Receiver{Kind: history.KindDisconnect, Device: "d1", Error: "failed to read: EOF"})
	b.dump(false)
	mustContain(t, must(t, b.check(t), NameAPIConformance, Pass).Detail, "every push frame read as the push API allows")
}
