package checker

import (
	"slices"
	"strings"
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

// unmarkedReplayHistory is a service correct but for the replay marking
// (an outside tester's -mode replayed-never): k1 is created once and its
// replay, a second sender's send of the key under key_scope chat, is
// answered with the original seq and message id as new (dedup false).
// first and second are the two answers' lines.
func unmarkedReplayHistory(target string) (b *hb, first, second int) {
	b = newHB()
	b.h.Header.Target = target
	first = b.send(1, "A", "k1", 1).ok
	b.invoke(2, "A", "k1")
	second = b.ok(2, "A", "k1", 1, "m-k1")
	b.send(3, "A", "k2", 2)
	b.dump(false)
	return b, first, second
}

// Over chatseq's HTTP API a replay is answered with the original 201 body
// and Idempotency-Replayed: true. An answer as new that repeats an earlier
// answer as new of its key (same seq and message id) is a replay left
// unmarked: api_conformance fails naming the marking, where it passed
// and only sequence_monotonic, ack_implies_persistence and
// linearizability failed, as if sequences or senders were corrupt (an
// outside tester's). The run warns that no answer was marked a replay.
func TestAPIConformanceFailsAReplayAnsweredAsNewOverHTTP(t *testing.T) {
	b, first, second := unmarkedReplayHistory("http")
	r := b.check(t)
	res := mustFail(t, r, NameAPIConformance, first, second)
	mustContain(t, res.Detail, `chat "A" key "k1" was answered seq 1 "m-k1" as a new message twice`)
	mustContain(t, res.Detail, "without marking it a replay (dedup false)")
	mustContain(t, res.Detail, "Idempotency-Replayed: true")
	if !slices.ContainsFunc(r.Warnings, func(w string) bool {
		return strings.Contains(w, "the service never marked a replay") && strings.Contains(w, "1 answer repeated an earlier answer of their key as new")
	}) {
		t.Fatalf("no warning of a service that never marked a replay: %q", r.Warnings)
	}

	// A service that marks some replays and not this one fails alike,
	// without the warning: its hit rate is not 0 for want of the header.
	b, first, second = unmarkedReplayHistory("http")
	b.invoke(4, "A", "k2")
	b.dedup(4, "A", "k2", 2, "m-k2")
	r = b.check(t)
	mustFail(t, r, NameAPIConformance, first, second)
	for _, w := range r.Warnings {
		if strings.Contains(w, "never marked a replay") {
			t.Fatalf("warned that no replay was marked beside a marked one: %q", w)
		}
	}
}

// A retry whose first answer was lost (info) and whose second attempt is
// answered as new created the key once: legitimate, as are marked
// replays of it and a replay answered while the creating persist was in
// flight. api_conformance passes over HTTP.
func TestAPIConformancePassesALostAnswerRetryAnsweredOnceAsNew(t *testing.T) {
	b := newHB()
	b.h.Header.Target = "http"
	b.invoke(1, "A", "k1")
	b.alloc(1, "A", 1)
	b.commit("A", "k1", 1, "m-k1")
	b.info(1, "A", "k1", "timeout")
	b.invoke(2, "A", "k1")
	b.ok(2, "A", "k1", 1, "m-k1")
	b.invoke(3, "A", "k1")
	b.dedup(3, "A", "k1", 1, "m-k1")
	b.invoke(4, "A", "k2")
	b.alloc(4, "A", 2)
	b.commit("A", "k2", 2, "m-k2")
	b.invoke(5, "A", "k2") // concurrent: a replay while k2's creation is in flight
	b.dedup(5, "A", "k2", 2, "m-k2")
	b.ok(4, "A", "k2", 2, "m-k2")
	b.dump(false)
	r := b.check(t)
	mustContain(t, must(t, r, NameAPIConformance, Pass).Detail, "no key answered twice as new with one message")
	must(t, r, NameLinearizability, Pass)
}

// The embedded targets' dedup is the sequencer's own, not an answer's
// header: a history not recorded over HTTP keeps api_conformance to
// bad_response and bad_frame, and the key created twice is
// linearizability's, as before.
func TestAPIConformanceLeavesAHistoryNotOverHTTPToTheOtherInvariants(t *testing.T) {
	for _, target := range []string{"", "memory", "postgres"} {
		b, _, _ := unmarkedReplayHistory(target)
		r := b.check(t)
		if d := must(t, r, NameAPIConformance, Pass).Detail; strings.Contains(d, "twice as new") {
			t.Fatalf("target %q: judged as HTTP answers: %q", target, d)
		}
		must(t, r, NameLinearizability, Fail)
		for _, w := range r.Warnings {
			if strings.Contains(w, "never marked a replay") {
				t.Fatalf("target %q: warned of the replay marking: %q", target, w)
			}
		}
	}
}
