package checker

import (
	"strings"
	"testing"
)

func TestIdempotencyGuaranteeResponses(t *testing.T) {
	b := newHB()
	l := b.send(1, "A", "k1", 1)
	b.invoke(2, "A", "k1")
	ok2 := b.dedup(2, "A", "k1", 2, "m-x")
	res := mustFail(t, b.check(t), NameIdempotencyGuarantee, l.ok, ok2)
	mustContain(t, res.Detail, `key "k1" answered seq 1`)
}

func TestIdempotencyGuaranteeOneMessagePerKey(t *testing.T) {
	b := newHB()
	b.send(1, "A", "k1", 1)
	b.counter("A", 2)
	m1 := b.msg("A", 1, "m-k1", "k1")
	m2 := b.msg("A", 2, "m-dup", "k1")
	mustFail(t, b.check(t), NameIdempotencyGuarantee, m1, m2)

	// A third message with the key: the first two are named.
	b.msg("A", 3, "m-dup3", "k1")
	mustFail(t, b.check(t), NameIdempotencyGuarantee, m1, m2)
}

func TestIdempotencyGuaranteePasses(t *testing.T) {
	r := validHistory().check(t)
	must(t, r, NameIdempotencyGuarantee, Pass)

	// Keys are scoped per chat: the same key in two chats is two keys, and
	// one key sent by two senders of one chat shares a message. That is
	// no warning: chatseq's runs send such keys on purpose (bench
	// --key-across-senders), and a service that keys by sender fails,
	// naming the two senders (TestKeyScopeTwoSendersOneKey).
	b := newHB()
	b.send(1, "A", "k", 1)
	b.send(2, "B", "k", 1)
	b.invoke(3, "A", "k")
	b.dedup(3, "A", "k", 1, "m-k")
	r = b.check(t)
	// No final messages: the acks are judged, the table part does not
	// apply.
	res := must(t, r, NameIdempotencyGuarantee, Pass)
	mustContain(t, res.Detail, "every ok response agrees (no final messages lines: 'at most one message per key' not judged)")
	for _, w := range r.Warnings {
		if strings.Contains(w, "sender") {
			t.Fatalf("a warning of one key's two senders: %q", w)
		}
	}
}
