package checker

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history"
)

// twoSendersOneKey: senders u1 and u2 each send key "k" in chat A, with
// their own content, and each gets a message of its own, as a service that
// scopes keys per client (ADR-001) answers. finals: how the final lines
// name their sender ("with": a sender field, "without": none, "lost": none,
// and u2's answer was lost, so no ack attributes its message).
func twoSendersOneKey(c history.Contract, finals string) *hb {
	b := newHBContract(c)
	b.invokeHash(1, "A", "k", "h:one")
	b.alloc(1, "A", 1)
	b.ok(1, "A", "k", 1, "m1")
	b.invokeHash(2, "A", "k", "h:two")
	b.alloc(2, "A", 2)
	if finals == "lost" {
		b.info(2, "A", "k", "timeout")
	} else {
		b.ok(2, "A", "k", 2, "m2")
	}
	b.counter("A", 2)
	sender := func(s string) string {
		if finals == "with" {
			return s
		}
		return ""
	}
	for _, f := range []history.Final{
		{Table: history.TableMessages, Chat: "A", Seq: 1, MessageID: "m1", Key: "k", Sender: sender("u1")},
		{Table: history.TableMessages, Chat: "A", Seq: 2, MessageID: "m2", Key: "k", Sender: sender("u2")},
		{Table: history.TableIdempotency, Chat: "A", Seq: 1, MessageID: "m1", Key: "k", Sender: sender("u1")},
		{Table: history.TableIdempotency, Chat: "A", Seq: 2, MessageID: "m2", Key: "k", Sender: sender("u2")},
	} {
		b.final(f)
	}
	return b
}

// Two senders using one key in one chat for two messages break a per-chat
// scope (ADR-004) and are what a per-client scope (ADR-001) allows: under
// either key_reuse, whether the final lines name the sender or the acks
// attribute them.
func TestKeyScopeTwoSendersOneKey(t *testing.T) {
	for _, reuse := range []string{history.KeyReuseReturnOriginal, history.KeyReuseReject} {
		for _, finals := range []string{"with", "without"} {
			t.Run(reuse+"/"+finals, func(t *testing.T) {
				// The header states chat; then client, in the header
				// and as an override of it (chatseq check --key-scope).
				r := twoSendersOneKey(history.Contract{KeyReuse: reuse, KeyScope: history.KeyScopeChat}, finals).check(t)
				res := must(t, r, NameIdempotencyGuarantee, Fail)
				// The detail names the two senders and what the scope
				// says of them (a per-sender service under chat).
				mustContain(t, res.Detail, `(sent by "u1" and "u2": under key_scope chat`)
				mustContain(t, res.Detail, "states key_scope client")
				must(t, r, NameLinearizability, Fail)
				if reuse == history.KeyReuseReject {
					must(t, r, NameKeyReuse, Fail)
				}
				if r.Contract.KeyScope != history.KeyScopeChat {
					t.Fatalf("contract key_scope = %q", r.Contract.KeyScope)
				}
				// No key_scope at all is chat.
				must(t, twoSendersOneKey(history.Contract{KeyReuse: reuse}, finals).check(t), NameIdempotencyGuarantee, Fail)

				r = twoSendersOneKey(history.Contract{KeyReuse: reuse, KeyScope: history.KeyScopeClient}, finals).check(t)
				mustAllPass(t, r)
				if r.Contract.KeyScope != history.KeyScopeClient {
					t.Fatalf("contract key_scope = %q", r.Contract.KeyScope)
				}
				b := twoSendersOneKey(history.Contract{KeyReuse: reuse, KeyScope: history.KeyScopeChat}, finals)
				mustAllPass(t, Check(&b.h, Options{Contract: &history.Contract{KeyScope: history.KeyScopeClient}}))
				// sender (the Message Service's, across chats) is judged
				// within a chat as client.
				mustAllPass(t, twoSendersOneKey(history.Contract{KeyReuse: reuse, KeyScope: history.KeyScopeSender}, finals).check(t))
			})
		}
	}
}

// Under client scope, final lines without a sender that no ack attributes,
// whose key several senders used: with sole_writer, every sender of the
// key but u2 has its own line in each table (u1's, which the ack at its
// sequence attributes), so they are u2's (TestKeyScopeTheOneSenderWithout
// ALine); without it they are judged for what they may be (u2's, or
// another writer's), and need nothing more. No failure is claimed.
func TestKeyScopeUnattributedFinals(t *testing.T) {
	for _, sole := range []bool{true, false} {
		b := twoSendersOneKey(history.Contract{KeyScope: history.KeyScopeClient}, "lost")
		if !sole {
			delete(b.h.Header.Extra, history.SoleWriterField)
		}
		r := b.check(t)
		for _, res := range r.Invariants {
			if res.Status == Fail {
				t.Fatalf("%s failed: %s\n%s", res.Name, res.Detail, reportText(r))
			}
		}
		must(t, r, NameIdempotencyGuarantee, Pass)
		// Without sole_writer another writer's may be the lines, and u2's
		// message and record then lack nothing a line must show: a pass
		// as well.
		must(t, r, NameIdempotencySeqConsist, Pass)
	}
	// Named, they are judged.
	b := twoSendersOneKey(history.Contract{KeyScope: history.KeyScopeClient}, "lost")
	for i := range b.h.Finals {
		if f := &b.h.Finals[i]; f.Table != history.TableCounters {
			f.Sender = map[uint64]string{1: "u1", 2: "u2"}[f.Seq]
		}
	}
	mustAllPass(t, b.check(t))
}

// One sender retrying its key and getting another message breaks either
// scope.
func TestKeyScopeOneSenderRetryOtherResult(t *testing.T) {
	for _, scope := range []string{history.KeyScopeChat, history.KeyScopeClient} {
		t.Run(scope, func(t *testing.T) {
			b := newHBContract(history.Contract{KeyScope: scope})
			b.invoke(1, "A", "k")
			b.alloc(1, "A", 1)
			ok1 := b.ok(1, "A", "k", 1, "m1")
			// The retry comes from another worker of the same sender, so
			// that only the sender makes it the same key.
			b.add(history.Event{Kind: history.KindInvoke, Process: 3, F: history.FPersist, Chat: "A", Key: "k", Sender: "u1", PayloadHash: "h:k"})
			b.alloc(3, "A", 2)
			ok2 := b.ok(3, "A", "k", 2, "m2")
			b.counter("A", 2)
			b.final(history.Final{Table: history.TableMessages, Chat: "A", Seq: 1, MessageID: "m1", Key: "k", Sender: "u1"})
			b.final(history.Final{Table: history.TableMessages, Chat: "A", Seq: 2, MessageID: "m2", Key: "k"})
			r := b.check(t)
			// The acks, and the two messages carrying the key (one named
			// by its sender, one by the ack at its sequence).
			res := mustFail(t, r, NameIdempotencyGuarantee, ok1, ok2)
			mustContain(t, res.Detail, `2 violations; smallest: chat "A" key "k" answered seq 1`)
			must(t, r, NameLinearizability, Fail)
		})
	}
}

// With sole_writer, a record without a sender above initial_counter is one
// of the history's senders' records for its key; s1's k1 has its own, so
// this one is s2's (a second record of s1's k1 would fail either way), and
// it is judged as s2's (no ack at its sequence says so): it may be the
// message of s2's persist of unknown outcome, and it is not that of s2's
// ack elsewhere.
func TestKeyScopeTheOneSenderWithoutALine(t *testing.T) {
	const h = `{"format":"chatseq-history","version":1,"contract":{"gaps":"allowed","key_scope":"client"},"sole_writer":true}
{"type":"invoke","process":1,"f":"persist","time":1,"chat":"c1","key":"k1","sender":"s1","payload_hash":"hk1"}
{"type":"ok","process":1,"f":"persist","time":2,"seq":1,"message_id":"m1","dedup":false}
{"type":"invoke","process":2,"f":"persist","time":3,"chat":"c1","key":"k1","sender":"s2","payload_hash":"hk2"}
{"type":"info","process":2,"f":"persist","time":4,"error":"timeout"}
{"type":"final","table":"idempotency","chat":"c1","key":"k1","seq":1,"message_id":"m1","sender":"s1"}
{"type":"final","table":"idempotency","chat":"c1","key":"k1","seq":2,"message_id":"m2"}
{"type":"table_read","table":"idempotency","lines":2}`
	mustAllPass(t, mustExact(t, h))
	acked := strings.Replace(h, `{"type":"info","process":2,"f":"persist","time":4,"error":"timeout"}`, `{"type":"ok","process":2,"f":"persist","time":4,"seq":3,"message_id":"m3","dedup":false}`, 1)
	mustBoth(t, acked, NameIdempotencySeqConsist, Fail)
}

// Two records without a sender from before the run, of one key text, are
// two keys' (a key has one record): s2's p3, the one sender that used it,
// may hold one, another writer's from before the run the other. Taking
// both for s2's claimed a second record of one key (oracle seed 6097475,
// a false FAIL).
func TestTwoLinesFromBeforeTheRunOfOneKeyText(t *testing.T) {
	const h = `{"format":"chatseq-history","version":1,"contract":{"gaps":"allowed","key_scope":"client"},"initial_counter":4}
{"type":"invoke","process":1,"f":"persist","time":1,"chat":"c1","key":"p3","sender":"s2","payload_hash":"hp3"}
{"type":"info","process":1,"f":"persist","time":6,"error":"timeout"}
{"type":"table_read","table":"idempotency","lines":2}
{"type":"final","table":"idempotency","chat":"c1","key":"p3","seq":3,"message_id":"pm3c1"}
{"type":"final","table":"idempotency","chat":"c1","key":"p3","seq":1,"message_id":"mx0"}`
	mustNotFail(t, mustExact(t, h))
	// Both named s2's: a second record of one key.
	named := strings.ReplaceAll(h, `"message_id":"pm3c1"}`, `"message_id":"pm3c1","sender":"s2"}`)
	named = strings.ReplaceAll(named, `"message_id":"mx0"}`, `"message_id":"mx0","sender":"s2"}`)
	must(t, mustExact(t, named), NameIdempotencySeqConsist, Fail)
}

// A line without a sender whose twin in the other table (its chat,
// sequence, message id and key text) names a sender is that sender's: a
// record is its message's. Here s1's record names m1 at seq 1, so the
// message there is s1's, though s2 also used k1 and neither was answered
// (oracle seed 8100001's range: unknown, both senders being candidates).
// Taken as s2's it would fail whatever else holds (s2's record-less
// message, s1's message-less record).
func TestALineWithoutASenderIsItsTwinsSenders(t *testing.T) {
	const h = `{"format":"chatseq-history","version":1,"contract":{"gaps":"allowed","key_reuse":"reject","key_scope":"client"},"sole_writer":true}
{"type":"invoke","process":2,"f":"persist","time":0,"chat":"c1","key":"k1","sender":"s2","payload_hash":"hk1"}
{"type":"info","process":2,"f":"persist","time":2,"error":"timeout"}
{"type":"invoke","process":1,"f":"persist","time":4,"chat":"c1","key":"k1","sender":"s1","payload_hash":"hk1"}
{"type":"invoke","process":3,"f":"sync","time":6,"chat":"c1","after":0,"limit":1}
{"type":"ok","process":3,"f":"sync","time":7,"seqs":[1],"message_ids":["m1"]}
{"type":"table_read","table":"counters","lines":1}
{"type":"final","table":"counters","chat":"c1","value":1}
{"type":"table_read","table":"messages","lines":1}
{"type":"final","table":"messages","chat":"c1","seq":1,"message_id":"m1","key":"k1"}
{"type":"table_read","table":"idempotency","lines":1}
{"type":"final","table":"idempotency","chat":"c1","key":"k1","seq":1,"message_id":"m1","sender":"s1"}`
	mustAllPass(t, mustExact(t, h))
	for _, sole := range []bool{true, false} {
		lines := h
		if !sole {
			lines = strings.Replace(h, `,"sole_writer":true`, ``, 1)
		}
		// The sync shows m1 before s1's persist began: s1's message, so
		// committed before it was sent.
		sync := "{\"type\":\"invoke\",\"process\":3,\"f\":\"sync\",\"time\":%d,\"chat\":\"c1\",\"after\":0,\"limit\":1}\n{\"type\":\"ok\",\"process\":3,\"f\":\"sync\",\"time\":%d,\"seqs\":[1],\"message_ids\":[\"m1\"]}\n"
		early := strings.Replace(lines, fmt.Sprintf(sync, 6, 7), "", 1)
		s1 := `{"type":"invoke","process":1,"f":"persist","time":4,`
		early = strings.Replace(early, s1, fmt.Sprintf(sync, 2, 3)+s1, 1)
		mustBoth(t, early, NameLinearizability, Fail)
		// Another message id at seq 1: no twin, so which sender's is
		// not known (two records' messages differ: a failure anyway).
		other := strings.Replace(lines, `"seq":1,"message_id":"m1","key":"k1"}`, `"seq":1,"message_id":"m9","key":"k1"}`, 1)
		must(t, mustExact(t, other), NameIdempotencySeqConsist, Fail)
	}
}

// With sole_writer, a line without a sender above initial_counter of a
// key text whose every sender already has its own line in that table is
// a second line of one of their keys: a failure whichever (oracle seed
// 1148173: it was judged as a line without a key and the history passed).
// Without that line the history passes.
func TestALineWithoutASenderEveryCandidateOfWhichHasItsOwn(t *testing.T) {
	const h = `{"format":"chatseq-history","version":1,"contract":{"gaps":"allowed","key_scope":"client"},"initial_counter":1,"sole_writer":true}
{"type":"invoke","process":6,"f":"persist","time":1,"chat":"c2","key":"p1","sender":"s1","payload_hash":"hp1"}
{"type":"ok","process":6,"f":"persist","time":6,"seq":1,"message_id":"pm1c2","dedup":true}
{"type":"invoke","process":6,"f":"persist","time":6,"chat":"c2","key":"k2","sender":"s2","payload_hash":"hk2"}
{"type":"ok","process":6,"f":"persist","time":12,"seq":3,"message_id":"m2","dedup":false}
{"type":"invoke","process":6,"f":"persist","time":12,"chat":"c2","key":"p1","sender":"s2","payload_hash":"hp1x"}
{"type":"ok","process":6,"f":"persist","time":17,"seq":4,"message_id":"m3","dedup":false}
{"type":"table_read","table":"messages","lines":4}
{"type":"final","table":"messages","chat":"c2","seq":1,"message_id":"pm1c2","key":"p1","sender":"s1"}
{"type":"final","table":"messages","chat":"c2","seq":3,"message_id":"m2","key":"k2","sender":"s2"}
{"type":"final","table":"messages","chat":"c2","seq":4,"message_id":"m3","key":"p1","sender":"s2","payload_hash":"hp1x"}
{"type":"final","table":"messages","chat":"c2","seq":2,"message_id":"mx2","key":"p1"}`
	mustBoth(t, h, NameIdempotencyGuarantee, Fail)
	without := strings.Replace(h, "\n"+`{"type":"final","table":"messages","chat":"c2","seq":2,"message_id":"mx2","key":"p1"}`, "", 1)
	without = strings.Replace(without, `"lines":4}`, `"lines":3}`, 1)
	mustAllPass(t, mustExact(t, without))
	// As records: a second record of one of their keys.
	records := strings.ReplaceAll(strings.ReplaceAll(h, `"table":"messages"`, `"table":"idempotency"`), `,"payload_hash":"hp1x"}`, `}`)
	mustBoth(t, records, NameIdempotencySeqConsist, Fail)
}

// A line without a sender at or below initial_counter was there before
// the run: a persist of the run of its key text can only have replayed
// it, never committed it, so it does not make the model let that persist
// commit anywhere (oracle range 8,100,001: linearizability unknown). A
// sync that shows another message at its sequence still fails.
func TestALineFromBeforeTheRunIsNoRunPersistsCommit(t *testing.T) {
	const h = `{"format":"chatseq-history","version":1,"contract":{"gaps":"allowed","key_reuse":"reject","key_scope":"client"},"initial_counter":1,"sole_writer":true}
{"type":"invoke","process":1,"f":"persist","time":1,"chat":"c1","key":"k1","sender":"s1","payload_hash":"hk1"}
{"type":"info","process":1,"f":"persist","time":2,"error":"timeout"}
{"type":"invoke","process":1,"f":"persist","time":2,"chat":"c1","key":"k1","sender":"s2","payload_hash":"hk1"}
{"type":"table_read","table":"messages","lines":1}
{"type":"final","table":"messages","chat":"c1","seq":1,"message_id":"m1","key":"k1"}`
	mustAllPass(t, mustExact(t, h))
	sync := strings.Replace(h, `{"type":"table_read"`, `{"type":"invoke","process":2,"f":"sync","time":3,"chat":"c1","after":0,"limit":2}
{"type":"ok","process":2,"f":"sync","time":4,"seqs":[1],"message_ids":["m9"]}
{"type":"table_read"`, 1)
	mustBoth(t, sync, NameLinearizability, Fail)
}
