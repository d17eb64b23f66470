package checker

import (
	"testing"

	"github.com/chatseq/chatseq/history"
)

// Under key_reuse return-original a key known held (acknowledged, or its
// message returned by a sync) gets its original sequence: a refusal as
// reused after that fails idempotency_guarantee, whatever the content; one
// while the key's first persist is in flight does not; under reject,
// key_reuse judges refusals instead.
func TestARefusalOfAHeldKeyFailsUnderReturnOriginal(t *testing.T) {
	refuse := func(b *hb, p int, key, hash string) (inv, done int) {
		inv = b.invokeHash(p, "A", key, hash)
		return inv, b.fail(p, "A", key, "idempotency_key_reused")
	}
	t.Run("after its ack, same content", func(t *testing.T) {
		b := newHB()
		ack := b.send(1, "A", "k1", 1).ok
		inv, done := refuse(b, 2, "k1", "h:k1")
		b.dump(false)
		res := mustFail(t, b.check(t), NameIdempotencyGuarantee, inv, done, ack)
		mustContain(t, res.Detail, "refused as reused")
	})
	t.Run("after its ack, other content", func(t *testing.T) {
		b := newHB()
		ack := b.send(1, "A", "k1", 1).ok
		inv, done := refuse(b, 2, "k1", "other")
		b.dump(false)
		mustFail(t, b.check(t), NameIdempotencyGuarantee, inv, done, ack)
	})
	t.Run("after a sync returned it, acknowledged later", func(t *testing.T) {
		b := newHB()
		b.invoke(1, "A", "k1")
		b.alloc(1, "A", 1)
		b.commit("A", "k1", 1, "m-k1")
		b.syncInvoke(3, "A", 0, 10)
		so := b.syncOK(3, "A", 1)
		inv, done := refuse(b, 2, "k1", "h:k1")
		b.ok(1, "A", "k1", 1, "m-k1")
		b.dump(false)
		mustFail(t, b.check(t), NameIdempotencyGuarantee, inv, done, so)
	})
	t.Run("while its first persist is in flight", func(t *testing.T) {
		b := newHB()
		b.invoke(1, "A", "k1")
		b.alloc(1, "A", 1)
		b.commit("A", "k1", 1, "m-k1")
		refuse(b, 2, "k1", "h:k1")
		b.ok(1, "A", "k1", 1, "m-k1")
		b.dump(false)
		must(t, b.check(t), NameIdempotencyGuarantee, Pass)
	})
	t.Run("under reject it is key_reuse's", func(t *testing.T) {
		b := newHBContract(history.Contract{KeyReuse: history.KeyReuseReject})
		b.send(1, "A", "k1", 1)
		refuse(b, 2, "k1", "other")
		b.dump(false)
		must(t, b.check(t), NameIdempotencyGuarantee, Pass)
		must(t, b.check(t), NameKeyReuse, Pass)
	})
}
