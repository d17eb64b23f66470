package checker

import (
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history"
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

func TestIdempotencyGuaranteePassesAndWarns(t *testing.T) {
	r := validHistory().check(t)
	must(t, r, NameIdempotencyGuarantee, Pass)

	// Keys are scoped per chat: the same key in two chats is two keys, and
	// one key sent by two senders of one chat shares a message (warned).
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
	found := false
	for _, w := range r.Warnings {
		found = found || strings.Contains(w, "more than one sender")
	}
	if !found {
		t.Fatalf("no multi-sender warning in %q", r.Warnings)
	}
}

func TestIdempotencySequenceConsistency(t *testing.T) {
	b := newHB()
	b.send(1, "A", "k1", 1)
	b.counter("A", 1)
	m := b.msg("A", 1, "m-k1", "k1")
	i := b.idem("A", "k1", 2, "m-k1")
	mustFail(t, b.check(t), NameIdempotencySeqConsist, m, i)

	b = newHB()
	b.send(1, "A", "k1", 1)
	b.counter("A", 1)
	b.msg("A", 1, "m-k1", "k1")
	b.idem("A", "k1", 1, "m-k1")
	i = b.idem("A", "k2", 5, "m-k2") // a record without its message
	mustFail(t, b.check(t), NameIdempotencySeqConsist, i)

	b = newHB()
	b.send(1, "A", "k1", 1)
	b.counter("A", 1)
	m = b.msg("A", 1, "m-k1", "k1")
	b.idem("A", "other", 9, "m-9")
	b.msg("A", 9, "m-9", "other")
	mustFail(t, b.check(t), NameIdempotencySeqConsist, m) // k1's message has no record

	// Three records of one key: the first two are named.
	b = newHB()
	b.send(1, "A", "k1", 1)
	b.counter("A", 1)
	b.msg("A", 1, "m-k1", "k1")
	i1 := b.idem("A", "k1", 1, "m-k1")
	i2 := b.idem("A", "k1", 1, "m-k1")
	b.idem("A", "k1", 1, "m-k1")
	mustFail(t, b.check(t), NameIdempotencySeqConsist, i1, i2)

	must(t, validHistory().check(t), NameIdempotencySeqConsist, Pass)
	b = newHB()
	b.send(1, "A", "k1", 1)
	b.counter("A", 1)
	b.msg("A", 1, "m-k1", "k1")
	mustContain(t, mustNA(t, b.check(t), NameIdempotencySeqConsist).Reason, "no final idempotency lines")

	// Messages without a key: the table is there but cannot be matched.
	b = newHB()
	b.send(1, "A", "k1", 1)
	b.idem("A", "k1", 1, "m-k1")
	b.msg("A", 1, "m-k1", "k1")
	b.msg("A", 2, "m-2", "")
	res := must(t, b.check(t), NameIdempotencySeqConsist, Unknown)
	mustContain(t, res.Detail, "1 final message carry no key")
}

func TestKeyReuse(t *testing.T) {
	reject := history.Contract{KeyReuse: history.KeyReuseReject}
	t.Run("replayed instead of rejected", func(t *testing.T) {
		b := newHBContract(reject)
		i1 := b.invokeHash(1, "A", "k", "h1")
		b.alloc(1, "A", 1)
		o1 := b.ok(1, "A", "k", 1, "m-k")
		i2 := b.invokeHash(2, "A", "k", "h2")
		o2 := b.dedup(2, "A", "k", 1, "m-k")
		mustFail(t, b.check(t), NameKeyReuse, i1, o1, i2, o2)
	})
	t.Run("acked as new instead of rejected", func(t *testing.T) {
		b := newHBContract(reject)
		i1 := b.invokeHash(1, "A", "k", "h1")
		o1 := b.ok(1, "A", "k", 1, "m-1")
		i2 := b.invokeHash(2, "A", "k", "h2")
		o2 := b.ok(2, "A", "k", 2, "m-2")
		mustFail(t, b.check(t), NameKeyReuse, i1, o1, i2, o2)
	})
	t.Run("retry of the same content rejected", func(t *testing.T) {
		b := newHBContract(reject)
		i1 := b.invokeHash(1, "A", "k", "h1")
		o1 := b.ok(1, "A", "k", 1, "m-k")
		i2 := b.invokeHash(2, "A", "k", "h1")
		f2 := b.fail(2, "A", "k", "idempotency_key_reused")
		res := mustFail(t, b.check(t), NameKeyReuse, i1, o1, i2, f2)
		mustContain(t, res.Detail, "same content")
	})
	t.Run("rejected though never used", func(t *testing.T) {
		b := newHBContract(reject)
		i := b.invokeHash(1, "A", "k", "h1")
		f := b.fail(1, "A", "k", "idempotency_key_reused")
		mustFail(t, b.check(t), NameKeyReuse, i, f)
	})
	t.Run("passes", func(t *testing.T) {
		b := newHBContract(reject)
		b.invokeHash(1, "A", "k", "h1")
		b.ok(1, "A", "k", 1, "m-k")
		b.invokeHash(2, "A", "k", "h2")
		b.fail(2, "A", "k", "idempotency_key_reused")
		b.invokeHash(3, "A", "k", "h1")
		b.dedup(3, "A", "k", 1, "m-k")
		// A rejection may also follow content of unknown outcome.
		b.invokeHash(1, "A", "q", "h1")
		b.info(1, "A", "q", "timeout")
		b.invokeHash(2, "A", "q", "h2")
		b.fail(2, "A", "q", "idempotency_key_reused")
		must(t, b.check(t), NameKeyReuse, Pass)
	})
	t.Run("n/a without payload hashes", func(t *testing.T) {
		b := newHBContract(reject)
		b.invokeHash(1, "A", "k", "")
		b.ok(1, "A", "k", 1, "m-k")
		b.invokeHash(2, "A", "k", "")
		b.dedup(2, "A", "k", 1, "m-k")
		na := mustNA(t, b.check(t), NameKeyReuse)
		mustContain(t, na.Reason, "no persist carries a payload_hash")
	})
	t.Run("unknown when some payload hashes are missing", func(t *testing.T) {
		b := newHBContract(reject)
		b.invokeHash(1, "A", "k", "h1")
		b.ok(1, "A", "k", 1, "m-k")
		b.invokeHash(2, "A", "k", "")
		b.dedup(2, "A", "k", 1, "m-k")
		res := must(t, b.check(t), NameKeyReuse, Unknown)
		mustContain(t, res.Detail, "1 persist of reused keys without payload_hash")
	})
	t.Run("n/a without operations", func(t *testing.T) {
		b := newHBContract(reject)
		mustContain(t, mustNA(t, b.check(t), NameKeyReuse).Reason, "no operations")
	})
}
